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


MODEL_STREAM = 0x6D6F64
"""Folded into an env's reset key to draw its model when no model keys are given."""


def model_keys(seed: int, batch_size: int) -> jax.Array:
    """One model key per env from one seed: a fixed set of robots, whatever the episodes."""
    return jax.random.split(jax.random.PRNGKey(seed), batch_size)


def model_keys_of(rng: jax.Array) -> jax.Array:
    """Each env's model key drawn from its reset key (what `reset` does without model keys),
    a stream apart from what the reset itself draws."""
    return jax.vmap(lambda k: jax.random.fold_in(k, MODEL_STREAM))(rng)


class BatchedEnv(brax_base.Wrapper):
    """`batch_size` copies of `env`, each with its own randomized physics model.

    The models are drawn at `reset` and ride in the state (`info['model']`: the fields
    randomization may change, `randomize.FIELDS` and gravity), not in the compiled
    programs: a program closing over them would bake them in as constants, so every seed
    would compile anew, the processes of a multi-host run (each with its own robots) could
    share no compiled program, and the devices of one host would all step the same robots.
    """

    def __init__(self, env, batch_size: int, episode_length: int | None = None,
                 randomize_model: bool = True):
        super().__init__(env)
        self.batch_size = batch_size
        self.episode_length = episode_length or env.config.episode_length
        self.randomized = randomize_model and env.config.randomization.enabled

    def draw_models(self, model_rng: jax.Array) -> dict[str, jax.Array]:
        """The randomized fields of one model per key (what `info['model']` holds), keyed by
        `mjx.Model` field name (`gravity` for `opt.gravity`); empty when not randomized."""
        if not self.randomized:
            return {}
        env = self.env
        return randomize.sample_models(env.mjx_model, model_rng, env.config.randomization,
                                       env.index, env.robot.actuator_kind)

    def model_of(self, state: brax_base.State):
        """The batched `mjx.Model` that `state`'s envs step, and its `in_axes`."""
        return randomize.batched_model(self.env.mjx_model, state.info["model"])

    def _vmap(self, fn, fields, n_batched: int):
        model, in_axes = randomize.batched_model(self.env.mjx_model, fields)
        return lambda *args: jax.vmap(fn, in_axes=(in_axes,) + (0,) * n_batched)(model, *args)

    def reset(self, rng: jax.Array, model_rng: jax.Array | None = None) -> brax_base.State:
        """Fresh episodes, one per key in `rng`, on models drawn from `model_rng` (one key per
        env; `model_keys(seed, batch_size)` gives a fixed set) or, without it, from `rng`."""
        if rng.shape[0] != self.batch_size:
            raise ValueError(f"reset needs {self.batch_size} keys (one per env), got {rng.shape[0]}")
        if model_rng is None:
            model_rng = model_keys_of(rng)
        elif model_rng.shape[0] != self.batch_size:
            raise ValueError(f"reset needs {self.batch_size} model keys (one per env), "
                             f"got {model_rng.shape[0]}")
        fields = self.draw_models(model_rng)
        state = self._vmap(self.env.reset_with, fields, 1)(rng)
        first = {"data": state.pipeline_state, "obs": state.obs, "walk": state.info["walk"]}
        zeros = jnp.zeros(self.batch_size)
        info = {**state.info, "first": first, "steps": zeros, "truncation": zeros,
                "reset_rng": jax.random.split(rng[0], self.batch_size),
                "step_metrics": state.metrics, "model": fields}
        return state.replace(info=info)

    def step(self, state: brax_base.State, action: jax.Array) -> brax_base.State:
        env = self.env
        fields = state.info["model"]
        state = self._vmap(env.step_with, fields, 2)(state, action)
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
        fresh = self._vmap(env.respawn, fields, 3)(first, state, keys[:, 0])

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
