"""Mirror maps: names, signed permutations, the joint map derived from the MJCF, and the
errors for robots that are not left-right symmetric."""

import mujoco
import numpy as np
import pytest

from mjxwalk import obs, symmetry
from mjxwalk.errors import SpecError
from mjxwalk.robot import load_robot
from mjxwalk.scene import build_model


@pytest.mark.parametrize("name,partner", [
    ("left_knee", "right_knee"), ("right_hip_yaw", "left_hip_yaw"), ("LeftFoot", "RightFoot"),
    ("l_ankle", "r_ankle"), ("hip_r", "hip_l"), ("arm_l_elbow", "arm_r_elbow"),
    ("waist_yaw", "waist_yaw"), ("neck", "neck"),
])
def test_other_side(name, partner):
    assert symmetry.other_side(name) == partner
    assert symmetry.other_side(partner) == name


def test_signed_permutation_rejects_non_permutations():
    with pytest.raises(ValueError, match="permutation"):
        symmetry.SignedPermutation(np.array([0, 0]), np.ones(2))
    with pytest.raises(ValueError, match="same length"):
        symmetry.SignedPermutation(np.array([0, 1]), np.ones(3))


def test_concat_offsets_each_block():
    m = symmetry.concat([symmetry.signs((1.0, -1.0)), symmetry.swap_pair(), symmetry.identity(1)])
    np.testing.assert_array_equal(m.apply(np.array([1.0, 2.0, 3.0, 4.0, 5.0])),
                                  [1.0, -2.0, 4.0, 3.0, 5.0])
    assert m.is_involution()
    # a map that is not its own inverse is caught (a 3-cycle)
    assert not symmetry.SignedPermutation(np.array([1, 2, 0]), np.ones(3)).is_involution()


def test_kidbot_joint_mirror(kidbot):
    model = build_model(kidbot)
    m = symmetry.joint_mirror(model, kidbot.joint_names)
    names = kidbot.joint_names
    for i, name in enumerate(names):
        source = names[m.index[i]]
        assert source == symmetry.other_side(name)
        # hinge axes are the same on both sides (see kidbot.xml): roll and yaw flip sign
        expected = -1.0 if name.endswith(("_roll", "_yaw")) else 1.0
        assert m.sign[i] == expected, name
    assert m.is_involution()


def _body_positions(model, joint_angles, qpos_adr):
    data = mujoco.MjData(model)
    data.qpos[:] = model.qpos0
    data.qpos[0:7] = (0, 0, 0, 1, 0, 0, 0)
    data.qpos[qpos_adr] = joint_angles
    mujoco.mj_kinematics(model, data)
    return data.xpos.copy()


@pytest.mark.parametrize("robot_name", ["kidbot", "brax_humanoid"])
def test_mirrored_joint_angles_give_the_mirror_image_pose(robot_name, kidbot, brax_humanoid_spec):
    """For random poses, mirrored joint angles put every body where the reflection of its
    partner body is: the derived signs are the robot's real symmetry, not a convention."""
    robot = kidbot if robot_name == "kidbot" else load_robot(brax_humanoid_spec)
    model = build_model(robot)
    m = symmetry.joint_mirror(model, robot.joint_names)
    qpos_adr = [model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n)]
                for n in robot.joint_names]
    bodies = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(model.nbody)]
    partner = [bodies.index(symmetry.other_side(b)) if b and symmetry.other_side(b) in bodies
               else i for i, b in enumerate(bodies)]
    rng = np.random.default_rng(0)
    lo, hi = robot.array("range").T
    for _ in range(5):
        q = rng.uniform(lo, hi)
        xpos = _body_positions(model, q, qpos_adr)
        mirrored = _body_positions(model, m.apply(q), qpos_adr)
        np.testing.assert_allclose(mirrored[partner], xpos * symmetry.POLAR, atol=1e-6)


def _mirror_error(folder, old, new, pattern):
    xml = folder / "kidbot.xml"
    text = xml.read_text()
    assert old in text
    xml.write_text(text.replace(old, new, 1))
    robot = load_robot(folder / "kidbot.toml")
    with pytest.raises(SpecError, match=pattern) as info:
        symmetry.joint_mirror(build_model(robot), robot.joint_names, robot.mjcf_path)
    assert info.value.path == robot.mjcf_path


@pytest.mark.parametrize("old,new,pattern", [
    ('name="right_hip_yaw" class="yaw"', 'name="right_hip_yaw" class="yaw" axis="0.3 0 1"',
     r"axis of joint 'left_hip_yaw' is not the mirror image of 'right_hip_yaw'|"
     r"axis of joint 'right_hip_yaw' is not the mirror image of 'left_hip_yaw'"),
    ('name="right_knee" class="pitch" range="0 2.2"', 'name="right_knee" class="pitch" range="0 2.0"',
     r"joint '(left|right)_knee' has range"),
    ('<body name="right_shin" pos="0 0 -0.12">', '<body name="right_shin" pos="0 0 -0.13">',
     r"joint '(left|right)_knee' is not at the mirror image of '(left|right)_knee'"),
])
def test_asymmetric_robot_is_refused_with_the_joint_named(kidbot_copy, old, new, pattern):
    _mirror_error(kidbot_copy, old, new, pattern)


def test_joint_without_partner_is_refused(kidbot_copy):
    toml = kidbot_copy / "kidbot.toml"
    text = toml.read_text().replace('"right_elbow"', '"right_forearm_joint"')
    xml = kidbot_copy / "kidbot.xml"
    toml.write_text(text)
    xml.write_text(xml.read_text().replace('"right_elbow"', '"right_forearm_joint"'))
    robot = load_robot(toml)
    with pytest.raises(SpecError, match=r"joint 'left_elbow' has no mirror partner 'right_elbow'"):
        symmetry.joint_mirror(build_model(robot), robot.joint_names, robot.mjcf_path)


def test_asymmetric_default_pose_is_refused(kidbot):
    m = symmetry.joint_mirror(build_model(kidbot), kidbot.joint_names)
    pose = kidbot.array("default").copy()
    symmetry.check_default_pose(m, pose, kidbot.joint_names)
    pose[kidbot.joint_names.index("right_knee")] += 0.1
    with pytest.raises(SpecError, match=r"not left-right symmetric at joint '(left|right)_knee'"):
        symmetry.check_default_pose(m, pose, kidbot.joint_names)


@pytest.mark.parametrize("latency", [False, True])
def test_frame_mirror_follows_the_block_layout(walk_env, latency):
    """The action latency, when observed, is the same for the mirrored robot."""
    import dataclasses

    from mjxwalk.contract import ObsBlock

    contract = walk_env.contract
    if latency:
        contract = dataclasses.replace(
            contract, obs_blocks=contract.obs_blocks + (ObsBlock("action_latency", 1, 1.0),))
    joints = walk_env.mirror.action
    frame = symmetry.frame_mirror(contract, joints)
    assert frame.size == contract.frame_size and frame.is_involution()
    readings = {"gyro": np.array([0.1, 0.2, 0.3]), "orientation": np.array([1.0, 0.0, 0.0, 0.0]),
                "joint_pos": np.asarray(contract.default_pose) + np.linspace(-0.2, 0.2, 18),
                "joint_vel": np.linspace(-1, 1, 18), "last_action": np.linspace(0, 1, 18),
                "command": np.array([0.3, 0.1, 0.5]), "gait_phase": 0.7, "action_latency": 1.25}
    mirrored = frame.apply(obs.frame(contract, readings))
    expected = obs.frame(contract, {
        **readings, "gyro": np.array([-0.1, 0.2, -0.3]),
        "joint_pos": joints.apply(readings["joint_pos"]),  # the default pose is symmetric
        "joint_vel": joints.apply(readings["joint_vel"]),
        "last_action": joints.apply(readings["last_action"]),
        "command": np.array([0.3, -0.1, -0.5]), "gait_phase": 0.7 + np.pi})
    np.testing.assert_allclose(mirrored, expected, atol=1e-12)


def test_frame_mirror_refuses_an_unknown_block(walk_env):
    import dataclasses

    from mjxwalk.contract import ObsBlock

    contract = dataclasses.replace(walk_env.contract,
                                   obs_blocks=walk_env.contract.obs_blocks + (ObsBlock("lidar", 4, 1.0),))
    with pytest.raises(ValueError, match="no mirror map for observation block 'lidar'"):
        symmetry.frame_mirror(contract, walk_env.mirror.action)
