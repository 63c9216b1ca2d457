"""Evaluate a policy in the batched env: episode return, falls, velocity tracking."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def evaluate(env, make_policy, state, num_envs: int = 64, steps: int | None = None,
             seed: int = 123, deterministic: bool = True) -> dict[str, float]:
    """Run the policy for `steps` control steps (default: one episode) from fresh resets;
    return the mean return of each env's first episode and per-step statistics."""
    from mjxwalk.wrappers import BatchedEnv

    steps = steps or env.config.episode_length
    batched = BatchedEnv(env, num_envs, episode_length=steps, seed=seed)
    policy = make_policy((state.normalizer_params, state.params.policy, state.params.value),
                         deterministic=deterministic)

    @jax.jit
    def run(key):
        env_state = batched.reset(jax.random.split(key, num_envs))

        def body(carry, k):
            s, alive, ret = carry
            action, _ = policy(s.obs, k)
            s = batched.step(s, action)
            ret = ret + alive * s.reward
            stats = (s.metrics["falls"] * alive, s.metrics["lin_vel_error"], alive)
            alive = alive * (1.0 - s.done)
            return (s, alive, ret), stats

        init = (env_state, jnp.ones(num_envs), jnp.zeros(num_envs))
        (_, _, ret), (falls, error, alive) = jax.lax.scan(body, init,
                                                          jax.random.split(key, steps))
        return ret, falls, error, alive

    ret, falls, error, alive = run(jax.random.PRNGKey(seed))
    minutes = steps * env.dt / 60
    return {"episode_return": float(jnp.mean(ret)),
            "fall_rate": float(jnp.mean(jnp.sum(falls, axis=0) > 0)),
            "falls_per_minute": float(jnp.sum(falls) / num_envs / minutes),
            "lin_vel_error": float(jnp.sum(error * alive) / jnp.maximum(jnp.sum(alive), 1))}
