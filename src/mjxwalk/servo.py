"""Servo model beyond an ideal PD: torque-speed line, velocity limit, backlash.

Pure functions over per-joint arrays; the simulator calls them every physics substep.
"""

from __future__ import annotations

import jax.numpy as jnp


def torque_bounds(velocity, stall_torque, no_load_speed, torque_speed: bool, velocity_limit: bool):
    """Lowest and highest torque the servo can produce while the joint moves at `velocity`.

    The datasheet line: stall torque at rest, falling linearly to zero at no-load speed in
    the direction of motion (the motor's back-EMF eats the supply voltage); braking against
    the motion is limited by the stall torque only.
    """
    hi = jnp.broadcast_to(stall_torque, jnp.shape(velocity))
    lo = -hi
    if torque_speed:
        hi = stall_torque * jnp.clip(1.0 - velocity / no_load_speed, 0.0, 1.0)
        lo = -stall_torque * jnp.clip(1.0 + velocity / no_load_speed, 0.0, 1.0)
    if velocity_limit:
        hi = jnp.where(velocity >= no_load_speed, 0.0, hi)
        lo = jnp.where(velocity <= -no_load_speed, 0.0, lo)
    return lo, hi


def backlash_error(error, backlash):
    """Position error the gears transmit: a dead band of `backlash` (full width) around zero."""
    half = 0.5 * backlash
    return jnp.sign(error) * jnp.maximum(jnp.abs(error) - half, 0.0)


def servo_torque(target, measured_angle, velocity, kp, kd, stall_torque, no_load_speed, backlash,
                 torque_speed: bool, velocity_limit: bool):
    """Joint torque of a position servo: PD on its own encoder reading, within its limits."""
    error = backlash_error(target - measured_angle, backlash)
    torque = kp * error - kd * velocity
    lo, hi = torque_bounds(velocity, stall_torque, no_load_speed, torque_speed, velocity_limit)
    return jnp.clip(torque, lo, hi)
