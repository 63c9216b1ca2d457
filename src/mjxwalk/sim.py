"""MJX glue: servo targets through physics substeps, sensor reads, contacts, NaN detection.

Pure functions of (model, data, ...) so the physics model can be a batched, randomized
argument. `RobotIndex` ids are host-side numpy ints and become compile-time constants.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from mjxwalk import compat
from mjxwalk.compat import mjx
from mjxwalk.scene import RobotIndex


def servo_ctrl(model: mjx.Model, data: mjx.Data, index: RobotIndex, target: jax.Array,
               kind: str, kp: jax.Array, kd: jax.Array) -> jax.Array:
    """Actuator controls that drive the joints to `target` (policy order).

    'position' actuators take the target directly (the servo's PD runs inside MuJoCo);
    'motor' actuators get the torque of the same PD law, clipped by the actuator's range.
    """
    ctrl = data.ctrl
    if kind == "position":
        return ctrl.at[index.actuator].set(target)
    q = data.qpos[index.qpos_adr]
    qd = data.qvel[index.dof_adr]
    gear = model.actuator_gear[index.actuator, 0]
    torque = kp * (target - q) - kd * qd
    lo = model.actuator_ctrlrange[index.actuator, 0]
    hi = model.actuator_ctrlrange[index.actuator, 1]
    return ctrl.at[index.actuator].set(jnp.clip(torque / gear, lo, hi))


def step_physics(model: mjx.Model, data: mjx.Data, index: RobotIndex, target: jax.Array,
                 n_substeps: int, kind: str, kp: jax.Array, kd: jax.Array) -> mjx.Data:
    """Hold `target` for one control period of `n_substeps` physics steps."""

    def substep(d, _):
        d = d.replace(ctrl=servo_ctrl(model, d, index, target, kind, kp, kd))
        return mjx.step(model, d), None

    data, _ = jax.lax.scan(substep, data, None, length=n_substeps)
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
