"""Training wrapper: a batch of envs with randomized models, episodes and auto-reset.

brax-compatible (`reset(keys)`, `step(state, action)`, `info['truncation']` and
`info['steps']` as brax's PPO reads them), in one layer instead of brax's four, because
two things brax's wrappers cannot do are needed here: each env steps its own randomized
`mjx.Model`, and a finished episode restarts on the terrain level the curriculum chose,
with fresh per-episode randomization, without paying for a full reset every step.
"""

from __future__ import annotations

from mjxwalk import compat  # noqa: F401  (first: imports MJX without its warp notice)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from brax.envs import base as brax_base  # noqa: E402

from mjxwalk import randomize  # noqa: E402


class BatchedEnv(brax_base.Wrapper):
    """`batch_size` copies of `env`, each with its own randomized physics model."""

    def __init__(self, env, batch_size: int, episode_length: int | None = None, seed: int = 0,
                 randomize_model: bool = True):
        super().__init__(env)
        self.batch_size = batch_size
        self.episode_length = episode_length or env.config.episode_length
        model = env.mjx_model
        in_axes = None
        cfg = env.config.randomization
        if randomize_model and cfg.enabled:
            keys = jax.random.split(jax.random.PRNGKey(seed), batch_size)
            model, in_axes = randomize.randomize(model, keys, cfg, env.index,
                                                 env.robot.actuator_kind)
        self.model, self.in_axes = model, in_axes

    def _vmap(self, fn, n_batched: int):
        return jax.vmap(fn, in_axes=(self.in_axes,) + (0,) * n_batched)

    def reset(self, rng: jax.Array) -> brax_base.State:
        if rng.shape[0] != self.batch_size:
            raise ValueError(f"reset needs {self.batch_size} keys (one per env), got {rng.shape[0]}")
        state = self._vmap(self.env.reset_with, 1)(self.model, rng)
        first = {"data": state.pipeline_state, "obs": state.obs, "walk": state.info["walk"]}
        zeros = jnp.zeros(self.batch_size)
        info = {**state.info, "first": first, "steps": zeros, "truncation": zeros,
                "reset_rng": jax.random.split(rng[0], self.batch_size),
                "step_metrics": state.metrics}
        return state.replace(info=info)

    def step(self, state: brax_base.State, action: jax.Array) -> brax_base.State:
        env = self.env
        state = self._vmap(env.step_with, 2)(self.model, state, action)
        info = state.info
        steps = info["steps"] + 1
        fell = state.metrics["falls"] > 0
        # float32, not the weak type jnp.where(..., 1.0, 0.0) gives: a state that comes back
        # with another type than it went in makes the training step compile twice
        truncation = ((steps >= self.episode_length) & (state.done == 0)).astype(jnp.float32)
        done = jnp.maximum(state.done, truncation)
        walk = info["walk"]
        # a truncated episode ends well: the curriculum judges it too
        level = jax.vmap(env.next_level)(walk, state.pipeline_state, fell)
        walk = walk.replace(level=jnp.where(truncation > 0, level, walk.level))
        state = state.replace(info={**info, "walk": walk})

        keys = jax.vmap(jax.random.split)(info["reset_rng"])
        first = state.replace(pipeline_state=info["first"]["data"], obs=info["first"]["obs"],
                              info={**state.info, "walk": info["first"]["walk"]})
        fresh = self._vmap(env.respawn, 3)(self.model, first, state, keys[:, 0])

        def pick(new, old):
            mask = jnp.reshape(done > 0, done.shape + (1,) * (old.ndim - 1))
            return jnp.where(mask, new, old)

        data = jax.tree.map(pick, fresh.pipeline_state, state.pipeline_state)
        obs = jax.tree.map(pick, fresh.obs, state.obs)
        walk = jax.tree.map(pick, fresh.info["walk"], state.info["walk"])
        info = {**state.info, "walk": walk, "steps": jnp.where(done > 0, 0.0, steps),
                "truncation": truncation, "reset_rng": keys[:, 1],
                "step_metrics": state.metrics}  # what acting.generate_unroll can record
        return state.replace(pipeline_state=data, obs=obs, done=done, info=info)
