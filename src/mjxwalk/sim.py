"""MJX glue: servo targets through physics substeps, sensor reads, contacts, NaN detection.

Pure functions of (model, data, ...) so the physics model can be a batched, randomized
argument. `RobotIndex` ids are host-side numpy ints and become compile-time constants.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from flax import struct

from mjxwalk import compat, servo
from mjxwalk.compat import mjx
from mjxwalk.config import ServoModel
from mjxwalk.scene import RobotIndex


@struct.dataclass
class ServoParams:
    """Per-episode servo quantities that are not in the physics model."""

    joint_offset: jax.Array
    """Encoder zero error per joint, rad: the servo controls angle + offset."""
    no_load_speed: jax.Array
    """No-load speed per joint, rad/s."""
    backlash: jax.Array
    """Gear backlash per joint (full width), rad."""


def gains(model: mjx.Model, index: RobotIndex) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Per-joint kp, kd and stall torque of this (possibly randomized) model."""
    act = index.actuator
    gear = model.actuator_gear[act, 0]
    return (-model.actuator_biasprm[act, 1], -model.actuator_biasprm[act, 2],
            model.actuator_forcerange[act, 1] * gear)


def joint_torque(model: mjx.Model, data: mjx.Data, index: RobotIndex, target: jax.Array,
                 params: ServoParams, servo_cfg: ServoModel) -> jax.Array:
    """Torque each servo applies to its joint while holding `target` (policy order)."""
    kp, kd, stall = gains(model, index)
    q = data.qpos[index.qpos_adr]
    qd = data.qvel[index.dof_adr]
    backlash = params.backlash if servo_cfg.backlash is not None else 0.0
    return servo.servo_torque(target, q + params.joint_offset, qd, kp, kd, stall,
                              params.no_load_speed, backlash, servo_cfg.torque_speed,
                              servo_cfg.velocity_limit)


def torque_ctrl(model: mjx.Model, data: mjx.Data, index: RobotIndex, torque: jax.Array,
                kind: str) -> jax.Array:
    """Actuator controls that make the actuators apply `torque` to their joints.

    A position actuator's force is gain*ctrl + b1*length + b2*velocity, so the control is
    solved for; a motor's is gain*ctrl. One servo model thus drives both kinds of robot.
    """
    act = index.actuator
    gear = model.actuator_gear[act, 0]
    force = torque / gear
    if kind == "position":
        length = gear * data.qpos[index.qpos_adr]
        velocity = gear * data.qvel[index.dof_adr]
        force = force - model.actuator_biasprm[act, 1] * length \
            - model.actuator_biasprm[act, 2] * velocity
    return data.ctrl.at[act].set(force / model.actuator_gainprm[act, 0])


def step_physics(model: mjx.Model, data: mjx.Data, index: RobotIndex, target: jax.Array,
                 previous_target: jax.Array, delay_substeps: jax.Array, n_substeps: int,
                 kind: str, params: ServoParams, servo_cfg: ServoModel) -> mjx.Data:
    """One control period of `n_substeps` physics steps.

    The first `delay_substeps` substeps still hold `previous_target` (the sub-step part of
    the action latency); the servo model runs at every substep.
    """

    def substep(d, i):
        held = jnp.where(i < delay_substeps, previous_target, target)
        torque = joint_torque(model, d, index, held, params, servo_cfg)
        d = d.replace(ctrl=torque_ctrl(model, d, index, torque, kind))
        return mjx.step(model, d), None

    data, _ = jax.lax.scan(substep, data, jnp.arange(n_substeps))
    return data


def is_finite(data: mjx.Data) -> jax.Array:
    """False when the physics blew up (NaN or inf in the state)."""
    return jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))


def imu(data: mjx.Data, index: RobotIndex) -> dict[str, jax.Array]:
    """Gyro, accelerometer and orientation as the IMU sensors read them."""
    s = data.sensordata
    return {
        "gyro": s[index.gyro_adr:index.gyro_adr + 3],
        "accelerometer": s[index.accelerometer_adr:index.accelerometer_adr + 3],
        "orientation": s[index.orientation_adr:index.orientation_adr + 4],
    }


def feet_contact(model: mjx.Model, data: mjx.Data, index: RobotIndex,
                 threshold: float = 1e-3) -> tuple[jax.Array, jax.Array]:
    """Per foot: touching the floor (bool) and total normal force (N), shape (n_feet,)."""
    con = compat.contacts(data)
    force = compat.contact_normal_forces(model, data)
    in_contact = []
    normal = []
    for geoms in index.foot_geoms:
        mine = jnp.isin(con.geom[:, 0], geoms) | jnp.isin(con.geom[:, 1], geoms)
        in_contact.append(jnp.any(mine & (con.dist < threshold)))
        normal.append(jnp.sum(jnp.where(mine, force, 0.0)))
    return jnp.stack(in_contact), jnp.stack(normal)


def local_velocity(data: mjx.Data) -> tuple[jax.Array, jax.Array]:
    """Root body linear and angular velocity in the root's own frame (m/s, rad/s)."""
    rot = data.xmat[1]  # body 1 carries the free joint (checked when the spec loads)
    # free joint: qvel[0:3] is the world linear velocity, qvel[3:6] the local angular one
    lin = rot.T @ data.qvel[0:3]
    return lin, data.qvel[3:6]
