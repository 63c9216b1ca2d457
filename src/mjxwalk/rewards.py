"""Reward terms: pure functions, one per field of `RewardScales`, same names.

Each returns an unscaled per-env scalar; the env multiplies by the configured scale, sums,
and logs every term. Penalties are positive here and get negative scales.
"""

from __future__ import annotations

import jax.numpy as jnp


def tracking_lin_vel(command, local_lin_vel, sigma):
    """exp(-|commanded - measured planar velocity|² / sigma): 1 when tracking exactly."""
    error = jnp.sum(jnp.square(command[:2] - local_lin_vel[:2]))
    return jnp.exp(-error / sigma)


def tracking_ang_vel(command, yaw_rate, sigma):
    """exp(-(commanded - measured yaw rate)² / sigma); the env passes the rate averaged
    over a gait cycle (`WalkConfig.yaw_rate_window`)."""
    return jnp.exp(-jnp.square(command[2] - yaw_rate) / sigma)


def lin_vel_z(local_lin_vel):
    """Vertical bouncing: vz²."""
    return jnp.square(local_lin_vel[2])


def ang_vel_xy(local_ang_vel):
    """Roll and pitch rates squared."""
    return jnp.sum(jnp.square(local_ang_vel[:2]))


def orientation(gravity):
    """Tilt: squared horizontal part of the gravity direction in the torso frame."""
    return jnp.sum(jnp.square(gravity[:2]))


def torques(joint_torque):
    """Sum of squared joint torques from the actuators (energy and heat in the servos)."""
    return jnp.sum(jnp.square(joint_torque))


def action_rate(action, last_action):
    """Squared change of the action between control steps (jerky motion)."""
    return jnp.sum(jnp.square(action - last_action))


def feet_air_time(air_time, first_contact, command, target):
    """Air time of each step up to `target` seconds, paid at touch-down, only when asked
    to move. Capped rather than centred on the target, so that the short, clumsy first
    steps of exploration earn a little instead of a penalty."""
    moving = jnp.linalg.norm(command) > 0.05
    return jnp.sum(jnp.minimum(air_time, target) * first_contact) * moving


def feet_phase(clearance, phase, command, swing_height, sigma):
    """Feet following the gait clock: exp(-Σ(clearance - target)² / sigma).

    The left foot swings while sin(phase) > 0, the right half a cycle later; a swinging
    foot's target clearance is `swing_height` x sin, a planted foot's zero, and both stay
    down when commanded to stand. A clock-driven target gives PPO a stepping rhythm to find
    long before velocity tracking pays, which is what makes a few million steps enough.
    """
    moving = jnp.linalg.norm(command) > 0.05
    feet_phase_angle = phase + jnp.array([0.0, jnp.pi])
    target = swing_height * jnp.maximum(jnp.sin(feet_phase_angle), 0.0) * moving
    return jnp.exp(-jnp.sum(jnp.square(clearance - target)) / sigma)


def catch_step(feet_xy, first_contact, target_xy, since_push, window, sigma):
    """Touch-downs near where each foot would catch the body, in the `window` seconds after a
    kick: Σ over feet landing now of exp(-|foot - target|² / sigma), zero outside the window.

    `target_xy` (n_feet, 2) is the torso's capture point (centre of mass + velocity x
    sqrt(height / g): where a foot must land for the body to come to rest over it) shifted
    by each foot's standing offset. The clock's rhythm says when to step, not where; after a
    kick the capture point says where, so this asks for the step that catches the shove.
    """
    error = jnp.sum(jnp.square(feet_xy - target_xy), axis=-1)
    return jnp.sum(first_contact * jnp.exp(-error / sigma)) * (since_push <= window)


def feet_slip(contact, feet_velocity):
    """Squared planar speed of feet that are on the ground."""
    return jnp.sum(contact * jnp.sum(jnp.square(feet_velocity[:, :2]), axis=-1))


def pose(joint_offset):
    """Squared distance of the joints from the default pose."""
    return jnp.sum(jnp.square(joint_offset))


def stand_still(joint_offset, command):
    """Joint motion away from the default pose while commanded to stand."""
    standing = jnp.linalg.norm(command) <= 0.05
    return jnp.sum(jnp.abs(joint_offset)) * standing


def termination(fell):
    """1 on the step the robot falls."""
    return fell.astype(jnp.float32)


def alive():
    """1 for every step survived."""
    return jnp.float32(1.0)
