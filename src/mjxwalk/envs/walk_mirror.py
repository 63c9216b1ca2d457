"""The walk env's vectors reflected left to right, for symmetry augmentation."""

from __future__ import annotations

import dataclasses

import mujoco

from mjxwalk import symmetry
from mjxwalk.contract import PolicyContract
from mjxwalk.envs.walk_sensing import privileged_layout
from mjxwalk.robot import RobotSpec


@dataclasses.dataclass(frozen=True)
class Mirror:
    """The env's vectors reflected left to right (see `mjxwalk.symmetry`)."""

    frame: symmetry.SignedPermutation
    """One actor observation frame."""
    state: symmetry.SignedPermutation
    """The actor observation (every history frame alike)."""
    privileged_state: symmetry.SignedPermutation
    """The critic observation."""
    action: symmetry.SignedPermutation
    """The action: the joints', then the clock action if the policy has one (unchanged)."""
    joints: symmetry.SignedPermutation
    """Anything in joint order (positions, velocities, targets, the last joint action)."""


def make_mirror(mj_model: mujoco.MjModel, robot: RobotSpec, contract: PolicyContract,
                recovery_size: int = 0) -> Mirror:
    """The mirror maps of a walk env; raises `SpecError` naming the joint if the robot is
    not symmetric. `recovery_size`: see `privileged_layout`."""
    joints = symmetry.joint_mirror(mj_model, robot.joint_names, robot.mjcf_path)
    symmetry.check_default_pose(joints, robot.array("default"), robot.joint_names,
                                robot.spec_path)
    frame = symmetry.frame_mirror(contract, joints)
    # a clock rate or shift is the same mirrored: the mirrored gait is the other half-cycle
    action = symmetry.concat([joints, symmetry.identity(1)]) if contract.clock_size else joints
    return Mirror(frame=frame, state=symmetry.tile(frame, contract.history_length),
                  privileged_state=privileged_mirror(frame, joints, contract.clock_size,
                                                       recovery_size),
                  action=action, joints=joints)


def privileged_mirror(frame: symmetry.SignedPermutation, joints: symmetry.SignedPermutation,
                      clock_size: int = 0, recovery_size: int = 0) -> symmetry.SignedPermutation:
    """Mirror map of the privileged observation, part by part of `privileged_layout`."""
    parts = {"frame": frame, "lin_vel": symmetry.signs(symmetry.POLAR),
             "ang_vel": symmetry.signs(symmetry.AXIAL), "mean_yaw_rate": symmetry.signs((-1.0,)),
             "height": symmetry.identity(1), "feet_contact": symmetry.swap_pair(),
             "feet_force": symmetry.swap_pair(), "feet_air_time": symmetry.swap_pair(),
             "floor_friction": symmetry.identity(1), "payload": symmetry.identity(1),
             "delays": symmetry.identity(2), "joint_torque": joints,
             "last_clock": symmetry.identity(clock_size),
             "recovery_left": symmetry.identity(recovery_size)}
    layout = privileged_layout(joints.size, frame.size, clock_size, recovery_size)
    return symmetry.concat([parts[name] for name, _ in layout])
