"""Sensor readings -> observation vector, written once for the simulator and the robot.

Every function takes the array library as `xp` (`numpy` on the robot, `jax.numpy` in the
env) and uses only operations both share, so the runner builds exactly the vector the
policy was trained on. Single-robot arrays; the env vmaps.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from mjxwalk.contract import ObsBlock, PolicyContract
from mjxwalk.errors import ContractError

COMMAND_NAMES = ("vx", "vy", "yaw_rate")
"""Velocity command: forward and sideways speed (m/s, heading frame) and turn rate (rad/s)."""

BLOCKS = {
    "gyro": "IMU angular velocity, rad/s, IMU frame",
    "gravity": "unit gravity direction in the IMU frame, from the IMU orientation",
    "joint_pos": "joint angles minus the default pose, rad",
    "joint_vel": "joint velocities, rad/s",
    "last_action": "the previous action, as output by the policy",
    "command": "velocity command (vx, vy, yaw_rate)",
    "gait_phase": "cos and sin of the gait clock phase",
    "action_latency": "control periods from reading the sensors to the goal positions going "
                      "out on the servo bus, as the runner times its own loop",
    "gait_phase_shift": "the shift the last action put on the gait clock, rad: its clock "
                        "value times the contract's gait_phase_offset_span",
}
"""Every block an observation frame can hold; readings use these names."""

DEFAULT_SCALES = {"gyro": 0.25, "gravity": 1.0, "joint_pos": 1.0, "joint_vel": 0.05,
                  "last_action": 1.0, "command": 1.0, "gait_phase": 1.0, "action_latency": 1.0,
                  "gait_phase_shift": 1.0}
"""Scales that keep every block of order one for a kid-size robot."""


def make_blocks(nu: int, gait_phase: bool, scales: Mapping[str, float] | None = None,
                action_latency: bool = False,
                gait_phase_shift: bool = False) -> tuple[ObsBlock, ...]:
    """The standard actor frame layout for a robot with `nu` actuated joints; the optional
    blocks (gait phase, action latency, gait phase shift) where asked for, after the others
    in that order, so a layout without them is the one trained policies were built on."""
    scales = {**DEFAULT_SCALES, **(scales or {})}
    sizes = {"gyro": 3, "gravity": 3, "joint_pos": nu, "joint_vel": nu, "last_action": nu,
             "command": len(COMMAND_NAMES), "gait_phase": 2, "action_latency": 1,
             "gait_phase_shift": 1}
    wanted = {"gait_phase": gait_phase, "action_latency": action_latency,
              "gait_phase_shift": gait_phase_shift}
    names = [n for n in BLOCKS if wanted.get(n, True)]
    return tuple(ObsBlock(n, sizes[n], float(scales[n])) for n in names)


def gravity_in_frame(quat, xp=np):
    """World gravity direction (0, 0, -1) seen in the frame of orientation `quat` (w, x, y, z)."""
    w, x, y, z = quat[0], quat[1], quat[2], quat[3]
    # third row of the rotation matrix = world z axis in the local frame
    return -xp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])


def frame(contract: PolicyContract, readings: Mapping, xp=np):
    """One observation frame from raw readings.

    readings: 'gyro' (3), 'orientation' (quaternion w, x, y, z of the IMU in the world),
    'joint_pos' (absolute angles, policy order), 'joint_vel', 'last_action', 'command' (3),
    'gait_phase' (the clock angle in rad, shifted by the last action's clock value when the
    policy shifts its clock), 'action_latency' (control periods from the readings to the goal
    positions reaching the servos; the runner times its own loop) and 'gait_phase_shift'
    (that shift, rad) when the contract has those blocks.
    """
    values = {
        "gyro": lambda: readings["gyro"],
        "gravity": lambda: gravity_in_frame(readings["orientation"], xp),
        "joint_pos": lambda: readings["joint_pos"] - xp.asarray(contract.default_pose,
                                                                 dtype=readings["joint_pos"].dtype),
        "joint_vel": lambda: readings["joint_vel"],
        "last_action": lambda: readings["last_action"],
        "command": lambda: readings["command"],
        "gait_phase": lambda: xp.stack([xp.cos(readings["gait_phase"]),
                                        xp.sin(readings["gait_phase"])]),
        "action_latency": lambda: readings["action_latency"],
        "gait_phase_shift": lambda: readings["gait_phase_shift"],
    }
    parts = []
    for block in contract.obs_blocks:
        if block.name not in values:
            raise ContractError(f"unknown observation block {block.name!r}; "
                                f"known blocks: {', '.join(BLOCKS)}")
        value = values[block.name]()
        parts.append(xp.reshape(value, (block.size,)) * block.scale)
    return xp.concatenate(parts)


def initial_history(contract: PolicyContract, first_frame, xp=np):
    """History filled with copies of the first frame, shape (history_length, frame_size)."""
    return xp.tile(first_frame[None, :], (contract.history_length, 1))


def push_history(history, new_frame, xp=np):
    """Newest frame first; the oldest falls off."""
    return xp.concatenate([new_frame[None, :], history[:-1]], axis=0)


def actor_observation(history, xp=np):
    """The policy's input: the history flattened, newest frame first."""
    return xp.reshape(history, (-1,))
