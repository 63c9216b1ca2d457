"""Scenes: servo parameters from the spec, pruned contacts, generated terrain."""

import dataclasses

import mujoco
import numpy as np
import pytest

from mjxwalk import scene
from mjxwalk.config import TerrainLayout
from mjxwalk.errors import SpecError


@pytest.fixture(scope="module")
def flat(kidbot):
    return scene.build_model(kidbot, "flat")


def test_servos_come_from_the_spec(kidbot, flat):
    idx = scene.robot_index(kidbot, flat)
    np.testing.assert_allclose(flat.actuator_gainprm[idx.actuator, 0], kidbot.array("kp"))
    np.testing.assert_allclose(flat.actuator_biasprm[idx.actuator, 1], -kidbot.array("kp"))
    np.testing.assert_allclose(flat.actuator_biasprm[idx.actuator, 2], -kidbot.array("kd"))
    np.testing.assert_allclose(flat.actuator_forcerange[idx.actuator, 1], kidbot.array("torque_limit"))
    np.testing.assert_allclose(flat.actuator_ctrlrange[idx.actuator], kidbot.array("range"))


def test_only_feet_touch_the_floor(kidbot, flat):
    idx = scene.robot_index(kidbot, flat)
    data = mujoco.MjData(flat)
    # lie the robot flat on its back: with feet-only contacts, only soles may touch
    data.qpos[:] = flat.qpos0
    data.qpos[2] = 0.05
    data.qpos[3:7] = [np.cos(np.pi / 4), 0, np.sin(np.pi / 4), 0]
    mujoco.mj_forward(flat, data)
    touching = {int(g) for c in data.contact[:data.ncon] for g in c.geom}
    assert touching <= {*np.concatenate(idx.foot_geoms).tolist(), idx.floor}


def test_all_contacts_mode_lets_the_body_touch(kidbot):
    model = scene.build_model(kidbot, "flat", floor_contacts="all")
    idx = scene.robot_index(kidbot, model)
    colliding = np.flatnonzero(model.geom_contype)
    assert len(colliding) > len(np.concatenate(idx.foot_geoms)) + 1
    # still no self-collision: robot geoms never accept other robot geoms
    assert np.all(model.geom_conaffinity[model.geom_bodyid > 0] == 0)


def test_rough_terrain_is_laid_out_from_the_config(kidbot):
    layout = TerrainLayout(levels=4, columns=3, tile_size=2.0, cell=0.05, seed=3)
    model = scene.build_model(kidbot, "rough", layout=layout)
    idx = scene.robot_index(kidbot, model)
    assert idx.hfield >= 0
    assert (model.hfield_nrow[0], model.hfield_ncol[0]) == (4 * 40, 3 * 40)
    np.testing.assert_allclose(model.hfield_size[0, :2], [3.0, 4.0])  # half extents, m
    heights = model.hfield_data
    assert heights.min() >= 0 and heights.max() == pytest.approx(1.0)
    other = scene.build_model(kidbot, "rough", layout=dataclasses.replace(layout, seed=4))
    assert not np.allclose(heights, other.hfield_data)


def test_unknown_terrain(kidbot):
    with pytest.raises(SpecError, match="unknown terrain 'lava'"):
        scene.build_model(kidbot, "lava")


def test_scene_without_floor(kidbot, tmp_path):
    bad = tmp_path / "scene.xml"
    bad.write_text(f'<mujoco><include file="{kidbot.mjcf_path}"/></mujoco>')
    robot = dataclasses.replace(kidbot, scenes={"flat": bad})
    with pytest.raises(SpecError, match="no ground geom named 'floor'"):
        scene.build_model(robot, "flat")
