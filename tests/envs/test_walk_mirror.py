"""The walk env's mirror maps against its own physics: the mirror image of a state, stepped
with the mirrored actions, stays the mirror image, observation by observation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mjxwalk import symmetry
from mjxwalk.compat import mjx

QUAT = jnp.array([1.0, -1.0, 1.0, -1.0])  # a rotation about a mirrored (axial) axis
POLAR, AXIAL = jnp.asarray(symmetry.POLAR), jnp.asarray(symmetry.AXIAL)


def mirror_state(env, state):
    """One env's state reflected through the world's xz plane, written out field by field
    from physics (not from the maps under test, except in joint order)."""
    m, idx = env.mirror, env.index
    joints = m.joints
    d, w = state.data, state.info["walk"]
    qpos = d.qpos.at[0:3].multiply(POLAR).at[3:7].multiply(QUAT)
    qpos = qpos.at[idx.qpos_adr].set(joints.apply(d.qpos[idx.qpos_adr]))
    qvel = d.qvel.at[0:3].multiply(POLAR).at[3:6].multiply(AXIAL)
    qvel = qvel.at[idx.dof_adr].set(joints.apply(d.qvel[idx.dof_adr]))
    data = mjx.forward(env.mjx_model, d.replace(qpos=qpos, qvel=qvel))
    walk = w.replace(
        command=w.command * jnp.array([1.0, -1.0, -1.0]), phase=w.phase + jnp.pi,
        last_action=joints.apply(w.last_action), targets=joints.apply(w.targets),
        history=jax.vmap(m.frame.apply)(w.history),
        imu=jnp.concatenate([w.imu[:, :3] * AXIAL, w.imu[:, 3:] * QUAT], axis=1),
        feet_air_time=w.feet_air_time[::-1], last_contact=w.last_contact[::-1],
        feet_pos=(w.feet_pos * POLAR)[::-1], yaw_rates=-w.yaw_rates,
        start_xy=w.start_xy * POLAR[:2])
    return state.replace(pipeline_state=data, info={**state.info, "walk": walk})


@pytest.mark.parametrize("name", ["nominal", "clock", "phase_offset"])
def test_mirror_maps_commute_with_the_physics(name, request):
    """Also with a clock the policy moves, by its rate or by a shift: the mirrored gait is
    the other half-cycle of the same clock, so the clock value mirrors to itself."""
    env = request.getfixturevalue(f"{name}_env")
    reset, step = request.getfixturevalue("batched" if name == "nominal" else f"{name}_batched")
    m = env.mirror
    assert m.state.is_involution() and m.privileged_state.is_involution()
    # the batches test_walk.py compiled for these configs (one pytest-xdist unit with it,
    # tests/conftest.py): 64 nominal envs, 8 with a clock action; half are stepped mirrored
    n = 32 if name == "nominal" else 4
    state = reset(jax.random.split(jax.random.PRNGKey(11), 2 * n))
    state = jax.tree.map(lambda x: x[:n], state)
    walk = state.info["walk"]
    # commands with every component non-zero, so a wrong sign cannot hide
    walk = walk.replace(command=jnp.tile(jnp.array([0.3, 0.1, 0.4]), (n, 1)))
    state = state.replace(info={**state.info, "walk": walk})
    mirrored = jax.jit(jax.vmap(lambda s: mirror_state(env, s)))(state)
    both = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), state, mirrored)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(25):  # half a second of stepping with large random actions
        action = jnp.asarray(rng.uniform(-0.6, 0.6, (n, env.action_size)), jnp.float32)
        both = step(both, jnp.concatenate([action, m.action.apply(action)]))
        for key, mirror in (("state", m.state), ("privileged_state", m.privileged_state)):
            o = both.obs[key]
            error = jnp.abs(mirror.apply(o[:n]) - o[n:]) / (1.0 + jnp.abs(o[:n]))
            worst = max(worst, float(error.max()))
        np.testing.assert_allclose(both.reward[n:], both.reward[:n], rtol=1e-4)
    # float32 physics stepped in two mirror-image orders: equal to a few 1e-5 (a wrong
    # sign or swap anywhere shows as an error of order one)
    assert worst < 1e-3, worst
