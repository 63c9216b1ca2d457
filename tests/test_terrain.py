"""Height look-ups agree with MuJoCo's own heightfield (ray casts on the compiled scene)."""

import jax.numpy as jnp
import mujoco
import numpy as np

from mjxwalk import scene, terrain


def test_height_at_matches_mujoco_ray_casts(kidbot):
    model = scene.build_model(kidbot, "rough")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    h = model.hfield_nrow[0], model.hfield_ncol[0]
    field = model.hfield_data.reshape(h)
    size = model.hfield_size[0]
    rng = np.random.default_rng(0)
    geomid = np.zeros(1, np.int32)
    floor = scene.robot_index(kidbot, model).floor
    group = np.zeros(6, np.uint8)
    group[model.geom_group[floor]] = 1
    errors = []
    for x, y in rng.uniform(-size[:2] + 0.1, size[:2] - 0.1, (80, 2)):
        dist = mujoco.mj_ray(model, data, np.array([x, y, 1.0]), np.array([0, 0, -1.0]), group,
                             1, -1, geomid)
        assert geomid[0] == floor
        errors.append(abs((1.0 - dist) - terrain.height_at(field, size, x, y)))
    # MuJoCo triangulates each cell, we interpolate bilinearly: they differ by a fraction of
    # one cell's height change (5 cm cells; the steepest is a 5 cm stair edge, rare in 80
    # random points, so the median is the robust check and the max a loose one)
    assert np.median(errors) < 1e-3
    assert max(errors) < 0.03


def test_tiles_get_harder_with_level():
    levels, n = 5, 40
    field = terrain.tiles(levels, 3, tile_size=2.0, cell=0.05, seed=0)
    assert field.shape == (levels * n, 3 * n)
    for col in range(3):
        relief = [np.ptp(field[r * n:(r + 1) * n, col * n:(col + 1) * n]) for r in range(levels)]
        assert all(b > a for a, b in zip(relief, relief[1:])), (terrain.TILE_TYPES[col], relief)
    x, y = terrain.tile_center(2, 1, levels, 3)
    assert (x, y) == (0.0, 0.0)  # the middle tile of a 5 x 3 field sits at the origin


def test_numpy_and_jax_agree():
    field = terrain.rough_heights(32, 48, seed=2)
    size = (2.0, 3.0, 0.1, 0.05)
    for x, y in [(0.0, 0.0), (1.3, -2.2), (5.0, 5.0), (-1.99, 2.99)]:
        from_jax = float(terrain.height_at(jnp.asarray(field), size, x, y, xp=jnp))
        assert abs(from_jax - terrain.height_at(field, size, x, y)) < 1e-6  # float32 rounding


def test_rough_heights_normalised_and_gentle():
    cell, height = 10.0 / 127, 0.05  # the rough scene: 128 cells over 10 m, 5 cm high
    for seed in range(5):
        field = terrain.rough_heights(128, 128, seed=seed)
        assert field.min() == 0.0 and field.max() == 1.0
        steepest = max(np.abs(np.diff(field, axis=0)).max(), np.abs(np.diff(field, axis=1)).max())
        # below a 30% grade: a 10 cm foot meets at most a 3 cm rise, which a kid-size robot
        # with 4 N·m ankles can step on
        assert steepest * height / cell < 0.3
