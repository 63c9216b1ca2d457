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


SCENARIOS = {
    "forward_0.3": {"vx_range": (0.3, 0.3), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.0, 0.0)},
    "turn_0.5": {"vx_range": (0.0, 0.0), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.5, 0.5)},
    "stand": {"vx_range": (0.0, 0.0), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.0, 0.0)},
}
"""Fixed commands the walk report evaluates, one 20 s episode each."""


def walk_report(config, make_policy, state, num_envs: int = 64, seconds: float = 20.0) -> dict:
    """Per scenario, under full randomization: mean forward speed and yaw rate against the
    command, share of episodes with a fall, falls per minute."""
    from mjxwalk.training.run import build_env
    from mjxwalk.wrappers import BatchedEnv
    import dataclasses

    report = {}
    for name, command in SCENARIOS.items():
        overrides = dict(config.env_overrides)
        overrides["commands"] = {**command, "zero_probability": 0.0, "resample_period": 1e6}
        cfg = dataclasses.replace(config, env_overrides=tuple(overrides.items()))
        env = build_env(cfg)
        steps = int(round(seconds / env.dt))
        batched = BatchedEnv(env, num_envs, episode_length=steps + 1, seed=7)
        policy = make_policy((state.normalizer_params, state.params.policy, state.params.value),
                             deterministic=True)

        @jax.jit
        def run(key):
            s = batched.reset(jax.random.split(key, num_envs))

            def body(carry, k):
                s, alive = carry
                action, _ = policy(s.obs, k)
                s = batched.step(s, action)
                lin = jnp.einsum("bij,bi->bj", s.data.xmat[:, 1], s.data.qvel[:, 0:3])
                out = (lin[:, 0], s.data.qvel[:, 5], s.metrics["falls"] * alive, alive)
                return (s, alive * (1.0 - s.done)), out

            _, out = jax.lax.scan(body, (s, jnp.ones(num_envs)), jax.random.split(key, steps))
            return out

        vx, yaw, falls, alive = run(jax.random.PRNGKey(0))
        weight = jnp.maximum(jnp.sum(alive), 1.0)
        report[name] = {
            "command_vx": command["vx_range"][0], "command_yaw_rate": command["yaw_rate_range"][0],
            "mean_vx": float(jnp.sum(vx * alive) / weight),
            "mean_yaw_rate": float(jnp.sum(yaw * alive) / weight),
            "episodes_with_fall": float(jnp.mean(jnp.sum(falls, axis=0) > 0)),
            "falls_per_minute": float(jnp.sum(falls) / num_envs / (seconds / 60)),
        }
    return report
