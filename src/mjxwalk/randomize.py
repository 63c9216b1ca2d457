"""Randomization: of the physics model per environment, and of sensors, servos and delays per
episode.

Model randomization follows brax's `randomization_fn` contract.

`randomize(model, rngs)` returns a batched `mjx.Model` (one per key) and the `in_axes` tree
that marks which fields carry the batch axis, so stepping is a plain
`vmap(step_with, in_axes=(in_axes, 0, 0))`. Every quantity can be switched off (range None),
and with `enabled=False` or every range off each environment gets the nominal model exactly.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from flax import struct

from mjxwalk import geometry
from mjxwalk.compat import mjx
from mjxwalk.config import Latency, ModelRandomization, Noise, SensorRandomization, ServoModel
from mjxwalk.contract import PolicyContract
from mjxwalk.scene import RobotIndex
from mjxwalk.sim import ServoParams

FIELDS = ("geom_friction", "body_mass", "body_inertia", "body_ipos", "dof_armature",
          "dof_damping", "dof_frictionloss", "actuator_gainprm", "actuator_biasprm",
          "actuator_forcerange")
"""mjx.Model fields that may differ between environments (plus opt.gravity)."""


def _uniform(rng, bounds, shape=()):
    return jax.random.uniform(rng, shape, minval=bounds[0], maxval=bounds[1])


def sample_model(model: mjx.Model, rng: jax.Array, cfg: ModelRandomization, index: RobotIndex,
                 kind: str) -> dict[str, jax.Array]:
    """One environment's randomized fields (unbatched), keyed by mjx.Model field name."""
    keys = iter(jax.random.split(rng, 16))
    out = {name: getattr(model, name) for name in FIELDS}
    gravity = model.opt.gravity
    if not cfg.enabled:
        return {**out, "gravity": gravity}
    feet = np.concatenate(index.foot_geoms)
    dofs, acts, torso = index.dof_adr, index.actuator, index.torso_body
    if cfg.floor_friction is not None:
        out["geom_friction"] = out["geom_friction"].at[index.floor, 0].set(
            _uniform(next(keys), cfg.floor_friction))
    if cfg.foot_friction is not None:
        out["geom_friction"] = out["geom_friction"].at[feet, 0].set(
            _uniform(next(keys), cfg.foot_friction))
    if cfg.mass_scale is not None:
        scale = _uniform(next(keys), cfg.mass_scale, (model.nbody,)).at[0].set(1.0)
        out["body_mass"] = out["body_mass"] * scale
        out["body_inertia"] = out["body_inertia"] * scale[:, None]
    if cfg.payload is not None:
        out["body_mass"] = out["body_mass"].at[torso].add(_uniform(next(keys), cfg.payload))
    if cfg.com_offset is not None:
        out["body_ipos"] = out["body_ipos"].at[torso].add(_uniform(next(keys), cfg.com_offset, (3,)))
    for name, bounds in (("dof_armature", cfg.armature_scale), ("dof_damping", cfg.damping_scale),
                         ("dof_frictionloss", cfg.frictionloss_scale)):
        if bounds is not None:
            out[name] = out[name].at[dofs].multiply(_uniform(next(keys), bounds, (len(dofs),)))
    if cfg.kp_scale is not None:
        scale = _uniform(next(keys), cfg.kp_scale, (len(acts),))
        out["actuator_biasprm"] = out["actuator_biasprm"].at[acts, 1].multiply(scale)
        if kind == "position":  # MuJoCo's own PD uses the gain too
            out["actuator_gainprm"] = out["actuator_gainprm"].at[acts, 0].multiply(scale)
    if cfg.kd_scale is not None:
        out["actuator_biasprm"] = out["actuator_biasprm"].at[acts, 2].multiply(
            _uniform(next(keys), cfg.kd_scale, (len(acts),)))
    if cfg.torque_limit_scale is not None:
        out["actuator_forcerange"] = out["actuator_forcerange"].at[acts].multiply(
            _uniform(next(keys), cfg.torque_limit_scale, (len(acts), 1)))
    if cfg.gravity_tilt is not None:
        tilt = _uniform(next(keys), cfg.gravity_tilt)
        heading = _uniform(next(keys), (0.0, 2 * np.pi))
        g = jnp.linalg.norm(gravity)
        gravity = g * jnp.stack([jnp.sin(tilt) * jnp.cos(heading),
                                 jnp.sin(tilt) * jnp.sin(heading), -jnp.cos(tilt)])
    return {**out, "gravity": gravity}


def sample_models(model: mjx.Model, rngs: jax.Array, cfg: ModelRandomization,
                  index: RobotIndex, kind: str) -> dict[str, jax.Array]:
    """`sample_model` for each key in `rngs`: every field with a leading batch axis."""
    return jax.vmap(lambda k: sample_model(model, k, cfg, index, kind))(rngs)


def batched_model(model: mjx.Model, fields: dict[str, jax.Array]) -> tuple[mjx.Model, Any]:
    """`model` with the batched `fields` of `sample_models` in place (none: `model` itself),
    and the `in_axes` tree that marks the fields carrying the batch axis."""
    in_axes = jax.tree.map(lambda _: None, model)
    if not fields:
        return model, in_axes
    fields = dict(fields)
    gravity = fields.pop("gravity")
    model = model.replace(**fields, opt=model.opt.replace(gravity=gravity))
    in_axes = in_axes.replace(**{name: 0 for name in fields}, opt=in_axes.opt.replace(gravity=0))
    return model, in_axes


def randomize(model: mjx.Model, rngs: jax.Array, cfg: ModelRandomization, index: RobotIndex,
              kind: str) -> tuple[mjx.Model, Any]:
    """Batched model with one randomized copy per key in `rngs`, and its `in_axes`."""
    return batched_model(model, sample_models(model, rngs, cfg, index, kind))


# --------------------------------------------------------------------------- per episode


@struct.dataclass
class EpisodeParams:
    """What is drawn at every reset: sensor errors, servo spread, delays."""

    servo: ServoParams
    """Encoder offsets, no-load speeds, backlash."""
    imu_rotation: jax.Array
    """Mounting error of the IMU, quaternion (w, x, y, z)."""
    gyro_bias: jax.Array
    """Constant gyro offset, rad/s."""
    gravity_bias: jax.Array
    """Constant offset of the measured gravity direction."""
    action_delay: jax.Array
    """Whole control periods before an action reaches the servos."""
    action_delay_substeps: jax.Array
    """Further physics substeps of action delay."""
    imu_delay: jax.Array
    """Control periods the IMU reading lags."""
    action_latency_error: jax.Array
    """Constant error of the action latency the policy is told, control periods."""


def _maybe(rng, bounds, shape=()):
    if bounds is None:
        return jnp.zeros(shape)
    return _uniform(rng, bounds, shape)


def sample_episode(rng: jax.Array, nu: int, no_load_speed: jax.Array, sensors: SensorRandomization,
                   servo_cfg: ServoModel, latency: Latency) -> EpisodeParams:
    """One episode's sensor errors, servo spread and delays."""
    k = iter(jax.random.split(rng, 12))
    axis = jax.random.normal(next(k), (3,))
    axis = axis / (jnp.linalg.norm(axis) + 1e-9)
    speed_scale = (_uniform(next(k), servo_cfg.no_load_speed_scale, (nu,))
                   if servo_cfg.no_load_speed_scale is not None else jnp.ones(nu))
    return EpisodeParams(
        servo=ServoParams(joint_offset=_maybe(next(k), sensors.joint_zero_offset, (nu,)),
                          no_load_speed=no_load_speed * speed_scale,
                          backlash=_maybe(next(k), servo_cfg.backlash, (nu,))),
        imu_rotation=geometry.axis_angle(axis, _maybe(next(k), sensors.imu_misalignment), xp=jnp),
        gyro_bias=_maybe(next(k), sensors.gyro_bias, (3,)),
        gravity_bias=_maybe(next(k), sensors.gravity_bias, (3,)),
        action_delay=jax.random.randint(next(k), (), latency.action_steps[0],
                                        latency.action_steps[1] + 1),
        action_delay_substeps=jax.random.randint(next(k), (), latency.action_substeps[0],
                                                 latency.action_substeps[1] + 1),
        imu_delay=jax.random.randint(next(k), (), latency.imu_steps[0], latency.imu_steps[1] + 1),
        # drawn last, from a key no earlier draw used: older runs' episodes stay the same
        action_latency_error=_maybe(next(k), sensors.action_latency_error),
    )


def frame_noise(rng: jax.Array, contract: PolicyContract, noise: Noise) -> jax.Array:
    """Uniform noise for one observation frame, per block, in the policy's (scaled) units."""
    amplitude = {"joint_pos": noise.joint_pos, "joint_vel": noise.joint_vel, "gyro": noise.gyro,
                 "gravity": noise.gravity, "action_latency": noise.action_latency}
    parts = [jnp.full(b.size, amplitude.get(b.name, 0.0) * b.scale * noise.level)
             for b in contract.obs_blocks]
    scale = jnp.concatenate(parts)
    return scale * jax.random.uniform(rng, scale.shape, minval=-1.0, maxval=1.0)


def apply_push(data: mjx.Data, rng: jax.Array, velocity: tuple[float, float],
               angular_velocity: float = 0.0) -> tuple[mjx.Data, jax.Array]:
    """Add a horizontal velocity kick of random direction and size to the root body, and
    with `angular_velocity` a turning kick of up to that many rad/s about each of its axes.
    Returns the kicked data and the horizontal kick."""
    k_dir, k_size = jax.random.split(rng)
    heading = jax.random.uniform(k_dir, minval=0.0, maxval=2 * jnp.pi)
    size = _uniform(k_size, velocity)
    kick = size * jnp.stack([jnp.cos(heading), jnp.sin(heading)])
    qvel = data.qvel.at[0:2].add(kick)
    if angular_velocity > 0:  # a Python branch: without it the draws above stay as they were
        # the free joint's qvel[3:6] is the angular velocity in the root body's own frame
        # fold_in(rng, 1) is split(rng)'s second key (k_size) with partitionable threefry
        spin = _uniform(jax.random.fold_in(rng, 2), (-angular_velocity, angular_velocity), (3,))
        qvel = qvel.at[3:6].add(spin)
    return data.replace(qvel=qvel), kick
