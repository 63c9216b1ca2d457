"""Velocity commands and the gait clock."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def sample_command(rng: jax.Array, low, high, zero_probability: float) -> jax.Array:
    """Uniform in [low, high] per component; all zero with `zero_probability` (stand still)."""
    rng_value, rng_zero = jax.random.split(rng)
    low = jnp.asarray(low, jnp.float32)
    high = jnp.asarray(high, jnp.float32)
    value = jax.random.uniform(rng_value, low.shape, minval=low, maxval=high)
    standing = jax.random.uniform(rng_zero) < zero_probability
    return jnp.where(standing, 0.0, value)


def advance_phase(phase: jax.Array, frequency: float, dt: float) -> jax.Array:
    """Gait clock angle after one control period, wrapped to [0, 2π)."""
    return jnp.mod(phase + 2.0 * jnp.pi * frequency * dt, 2.0 * jnp.pi)
