"""Robot specs: the built-in robot loads, and every kind of bad input names its problem."""

import re

import numpy as np
import pytest

import mjxwalk
from mjxwalk.errors import SpecError
from mjxwalk.robot import load_robot

KIDBOT_JOINTS = 18


def test_builtin_robot(kidbot):
    assert "kidbot" in mjxwalk.list_robots()
    assert kidbot.nu == KIDBOT_JOINTS
    assert kidbot.actuator_kind == "position"
    assert kidbot.n_substeps == 4  # 0.02 s control / 0.005 s physics
    assert len(set(kidbot.servo_ids)) == KIDBOT_JOINTS
    lo, hi = kidbot.array("range").T
    assert np.all(lo <= kidbot.default_pose) and np.all(kidbot.default_pose <= hi)
    knees = [kidbot.joint_names.index(n) for n in ("left_knee", "right_knee")]
    assert np.all(np.abs(kidbot.default_pose[knees]) > 0.2), "home pose has bent knees"


def test_unknown_robot_name():
    with pytest.raises(SpecError, match="unknown robot 'kidbott'.*kidbot"):
        load_robot("kidbott")


def test_foreign_humanoid_with_torque_motors(brax_humanoid_spec):
    robot = load_robot(brax_humanoid_spec)
    assert robot.actuator_kind == "motor"
    assert robot.nu == 17
    assert robot.imu_site == "mjxwalk_imu"  # added at imu_body
    assert robot.default_base_qpos[2] > 1.0  # computed so the feet touch z = 0


def edit(path, old, new, count=1):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, count))


def load_expect(spec, pattern):
    with pytest.raises(SpecError) as info:
        load_robot(spec)
    assert re.search(pattern, str(info.value)), str(info.value)
    return info.value


@pytest.mark.parametrize("old,new,pattern", [
    ('name = "left_knee"', 'name = "left_kne"', r"joint 'left_kne' is not a joint in kidbot.xml \(did you mean 'left_knee'\?\)"),
    ('imu_site = "imu"', 'imu_site = "imu_sensor"', r"imu_site 'imu_sensor' is not a site"),
    ('torso_body = "torso"', 'torso_body = "chest"', r"torso_body 'chest' is not a body"),
    ('feet = ["left_foot", "right_foot"]', 'feet = ["left_foot"]', r"feet must name 2 foot bodies"),
    ('feet = ["left_foot", "right_foot"]', 'feet = ["left_foot", "right_sole"]', r"foot body 'right_sole' is not a body"),
    ('default_pose = "home"', 'default_pose = "crouch"', r"keyframe 'crouch' not found"),
    ('name = "kidbot"', 'name = "kidbot"\ncontrol_period = 0.0123', r"control_period 0.0123 s is not a whole multiple"),
    ('name = "kidbot"', 'name = "kidbot"\nspeed = 3', r"unknown key 'speed' in the spec"),
    ('[servo]', '[servo]\nkpp = 3', r"unknown key 'kpp' in \[servo\] \(did you mean 'kp'\?\)"),
    ('servo_id = 2 }', 'servo_id = 1 }', r"servo_id 1 is used twice"),
    ('servo_id = 2 }', 'servo_id = 2, gain = 3 }', r"unknown key 'gain' in joints\[1\]"),
    ('mjcf = "kidbot.xml"', 'mjcf = "nothere.xml"', r"robot MJCF file not found"),
    ('name = "kidbot"', 'name = kidbot', r"not valid TOML"),
    ('action_scale = 0.3', 'action_scale = -0.3', r"action_scale must be > 0"),
])
def test_spec_errors_name_file_and_problem(kidbot_copy, old, new, pattern):
    spec = kidbot_copy / "kidbot.toml"
    edit(spec, old, new)
    err = load_expect(spec, pattern)
    assert err.path is not None and err.path.name in ("kidbot.toml", "kidbot.xml", "nothere.xml")


def test_missing_joint_in_spec_means_unlisted_actuator(kidbot_copy):
    spec = kidbot_copy / "kidbot.toml"
    lines = [l for l in spec.read_text().splitlines() if '"right_elbow"' not in l]
    spec.write_text("\n".join(lines))
    load_expect(spec, r"actuates joint 'right_elbow', which is not in the spec")


def test_joint_without_actuator(kidbot_copy):
    xml = kidbot_copy / "kidbot.xml"
    text = xml.read_text()
    # drop the actuator of the right elbow
    new = re.sub(r'<position[^>]*joint="right_elbow"[^>]*/>', "", text)
    assert new != text
    new = re.sub(r'\s+ctrl="[^"]*"', "", new)  # the keyframe's ctrl would no longer fit
    xml.write_text(new)
    load_expect(kidbot_copy / "kidbot.toml", r"joint 'right_elbow' has no actuator")


def test_malformed_mjcf(kidbot_copy):
    xml = kidbot_copy / "kidbot.xml"
    xml.write_text(xml.read_text().replace("</worldbody>", "", 1))
    err = load_expect(kidbot_copy / "kidbot.toml", r"MuJoCo cannot load this robot MJCF")
    assert err.path.name == "kidbot.xml"


def test_missing_spec_file(tmp_path):
    load_expect(tmp_path / "nope.toml", r"spec file not found")


def test_feature_mjx_cannot_simulate(kidbot_copy):
    """A model MuJoCo accepts but MJX cannot simulate fails at make_env, naming the MJCF."""
    xml = kidbot_copy / "kidbot.xml"
    text = xml.read_text()
    new = re.sub(r"<option ", '<option integrator="implicit" ', text, count=1)
    assert new != text
    xml.write_text(new)
    with pytest.raises(SpecError, match=r"kidbot.xml: MJX cannot simulate a feature"):
        mjxwalk.make_env("walk", kidbot_copy / "kidbot.toml")
