"""Velocity commands and the gait clock."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from mjxwalk.config import CommandConfig


def sample_command(rng: jax.Array, config: CommandConfig) -> jax.Array:
    """Uniform in the configured ranges per component (vx, vy, yaw_rate); each component
    zero on its own with `axis_zero_probability` (pure turns, straight walks), and all zero
    with `zero_probability` (stand still)."""
    rng_value, rng_axis, rng_zero = jax.random.split(rng, 3)
    low = jnp.asarray(config.low, jnp.float32)
    high = jnp.asarray(config.high, jnp.float32)
    value = jax.random.uniform(rng_value, low.shape, minval=low, maxval=high)
    axis_zero = jax.random.uniform(rng_axis, low.shape) < config.axis_zero_probability
    standing = jax.random.uniform(rng_zero) < config.zero_probability
    return jnp.where(standing | axis_zero, 0.0, value)


def advance_phase(phase: jax.Array, frequency: float, dt: float) -> jax.Array:
    """Gait clock angle after one control period, wrapped to [0, 2π)."""
    return jnp.mod(phase + 2.0 * jnp.pi * frequency * dt, 2.0 * jnp.pi)
