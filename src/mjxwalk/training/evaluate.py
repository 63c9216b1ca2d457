"""Evaluate a policy in the batched env: episode return, falls, velocity tracking, estimates."""

from __future__ import annotations

import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


ACTION_STREAM = 0x616374
"""Folded into `first_episode`'s key for the policy's sampling keys ("act")."""


def first_episode(batched, policy, key: jax.Array, steps: int, record,
                  model_rng: jax.Array | None = None):
    """Roll `policy` out for `steps` from fresh resets of `batched`, on the models drawn
    from `model_rng` (see `BatchedEnv.reset`).

    Returns `record(state)` stacked over steps and the mask of envs still in their first
    episode when each step began, both shaped (steps, num_envs). A `Policy` enters the
    compiled rollout as an argument, so its parameters stay out of the program and another
    policy of the same networks reuses the compile (a closure's arrays are baked in as
    constants: one new program per policy). Any other callable is closed over.

    A sampling policy draws its per-step keys from a stream of their own (`ACTION_STREAM`),
    apart from the reset keys: split from `key` itself, step t's key would be env t's reset
    key.
    """

    def run(policy, key, model_rng):
        env_state = batched.reset(jax.random.split(key, batched.batch_size), model_rng)

        def body(carry, k):
            s, alive = carry
            action, _ = policy(s.obs, k)
            s = batched.step(s, action)
            return (s, alive * (1.0 - s.done)), (record(s), alive)

        init = (env_state, jnp.ones(batched.batch_size))
        action_keys = jax.random.split(jax.random.fold_in(key, ACTION_STREAM), steps)
        return jax.lax.scan(body, init, action_keys)[1]

    if isinstance(policy, Policy):
        return jax.jit(run)(policy, key, model_rng)
    return jax.jit(lambda key, model_rng: run(policy, key, model_rng))(key, model_rng)


@struct.dataclass
class Policy:
    """A training state's acting function, `policy(obs, key) -> (action, extras)`, with its
    parameters as pytree leaves (what `first_episode` passes into its compiled rollout)."""

    params: tuple
    """(normalizer, policy, value) parameters, as brax's `make_policy` takes them."""
    make_policy: Callable = struct.field(pytree_node=False)
    """The run's `make_policy` (brax's inference-function factory)."""
    deterministic: bool = struct.field(pytree_node=False, default=True)
    """Act with the mode of the action distribution instead of sampling it."""

    def __call__(self, obs, key):
        return self.make_policy(self.params, deterministic=self.deterministic)(obs, key)


def policy_fn(make_policy, state, deterministic: bool = True) -> Policy:
    """The acting function `policy(obs, key) -> (action, extras)` of a training state."""
    params = (state.normalizer_params, state.params.policy, state.params.value)
    # one placement and dtype whatever made the state (a fresh init, training's mesh, a
    # checkpoint, a Python float in the normalizer), so every policy fits one compile
    params = jax.device_put(jax.tree.map(np.asarray, params), jax.devices()[0])
    return Policy(params, make_policy, deterministic)


def evaluate(env, make_policy, state, num_envs: int = 64, steps: int | None = None,
             seed: int = 123, deterministic: bool = True) -> dict[str, float]:
    """Run the policy for `steps` control steps (default: one episode) from fresh resets;
    return the mean return of each env's first episode and per-step statistics."""
    from mjxwalk.wrappers import BatchedEnv

    steps = steps or env.config.episode_length
    batched = BatchedEnv(env, num_envs, episode_length=steps)
    (reward, falls, error), alive = first_episode(
        batched, policy_fn(make_policy, state, deterministic), jax.random.PRNGKey(seed), steps,
        lambda s: (s.reward, s.metrics["falls"], s.metrics["lin_vel_error"]))
    falls = falls * alive
    minutes = steps * env.dt / 60
    return {"episode_return": float(jnp.mean(jnp.sum(reward * alive, axis=0))),
            "fall_rate": float(jnp.mean(jnp.sum(falls, axis=0) > 0)),
            "falls_per_minute": float(jnp.sum(falls) / num_envs / minutes),
            "lin_vel_error": float(jnp.sum(error * alive) / jnp.maximum(jnp.sum(alive), 1))}


SCENARIOS = {
    "forward_0.3": {"vx_range": (0.3, 0.3), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.0, 0.0)},
    "turn_0.5": {"vx_range": (0.0, 0.0), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.5, 0.5)},
    "stand": {"vx_range": (0.0, 0.0), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.0, 0.0)},
}
"""Fixed commands the walk report evaluates, one 20 s episode each."""

ACCEPTANCE_PUSHES = {"enabled": True, "interval": (5.0, 10.0), "velocity": (0.1, 0.5)}
"""Pushes of the walk report, whatever the run trained with (a kick of 0.1-0.5 m/s every
5-10 s; the fields it leaves out, such as turning kicks, take `Pushes`' defaults), so that
runs trained with more, fewer or no pushes are judged on the same test."""


def _forward_and_yaw(s):
    """Root forward speed in its own frame, world yaw rate, falls."""
    lin = jnp.einsum("bij,bi->bj", s.data.xmat[:, 1], s.data.qvel[:, 0:3])
    return lin[:, 0], s.data.qvel[:, 5], s.metrics["falls"]


def env_with_fixed_commands(config, pushes: dict | None = None, **commands):
    """The run's env with commands never resampled and never zeroed (`commands` may pin
    their ranges): evaluation and rendering set the command themselves. `pushes`, if
    given, replaces the run's push settings (a `Pushes` field dict)."""
    import dataclasses

    from mjxwalk.training.run import build_env

    # appended, not collapsed into a dict: a field the run set twice (a resume's --set on top
    # of the first run's) keeps both, merged in order as in training
    overrides = list(config.env_overrides)
    if pushes is not None:  # every field: what `pushes` leaves out takes Pushes' default
        from mjxwalk.config import Pushes

        overrides.append(("pushes", {**dataclasses.asdict(Pushes()), **pushes}))
    overrides.append(("commands", {**commands, "zero_probability": 0.0,
                                   "axis_zero_probability": 0.0, "resample_period": 1e6}))
    return build_env(dataclasses.replace(config, env_overrides=tuple(overrides)))


REPORT_MODEL_SEED = 7
"""Seed of the walk report's randomized physics models (episode i gets the i-th)."""
REPORT_RESET_SEED = 0
"""Seed of the walk report's resets, split one key per episode: servo, sensor and delay draws,
and the kicks that follow."""


def scenario_env(config, name: str, pushes: dict = ACCEPTANCE_PUSHES):
    """The env of one walk-report scenario: the run's randomization, the scenario's fixed
    command, `pushes` (a `Pushes` field dict; the walk report's by default)."""
    return env_with_fixed_commands(config, pushes=pushes, **SCENARIOS[name])


def scenario_rollout(config, policy, name: str, num_envs: int, seconds: float, record,
                     pushes: dict = ACCEPTANCE_PUSHES):
    """`num_envs` first episodes of scenario `name` (fixed seeds, so runs compare alike):
    its env, and `first_episode`'s (records, alive mask)."""
    return command_rollout(config, policy, SCENARIOS[name], num_envs, seconds, record, pushes)


def command_rollout(config, policy, commands: dict, num_envs: int, seconds: float, record,
                    pushes: dict = ACCEPTANCE_PUSHES):
    """`scenario_rollout` for any fixed command (`commands` pins the `CommandConfig`
    ranges, like a `SCENARIOS` entry)."""
    from mjxwalk.wrappers import BatchedEnv, model_keys

    env = env_with_fixed_commands(config, pushes=pushes, **commands)
    steps = int(round(seconds / env.dt))
    batched = BatchedEnv(env, num_envs, episode_length=steps + 1)
    return env, first_episode(batched, policy, jax.random.PRNGKey(REPORT_RESET_SEED), steps, record,
                              model_keys(REPORT_MODEL_SEED, num_envs))


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial share (95% for z = 1.96). Unlike the normal
    approximation it stays inside [0, 1] and is not empty at 0 or `trials` successes, which
    matters for fall counts of a few in 64 episodes."""
    if trials <= 0:
        raise ValueError(f"trials must be > 0, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    p = successes / trials
    scale = 1.0 + z * z / trials
    center = (p + z * z / (2 * trials)) / scale
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / scale
    return max(0.0, center - half), min(1.0, center + half)


REPORT_KEY = "evaluation_20s_under_randomization"
"""Where `benchmarks/evaluate_walk.py` files keep the `walk_report`."""


def walk_report(config, make_policy, state, num_envs: int = 64, seconds: float = 20.0,
                pushes: dict = ACCEPTANCE_PUSHES) -> dict:
    """Per scenario, under the run's full randomization and `pushes` (a `Pushes` field dict;
    the acceptance kicks by default): mean forward speed and yaw rate against the command,
    share of episodes with a fall (with its 95% interval: 64 episodes resolve it to about
    ±12 points at 40%), falls per minute."""
    report = {}
    policy = policy_fn(make_policy, state, deterministic=True)
    for name, command in SCENARIOS.items():
        _, ((vx, yaw, falls), alive) = scenario_rollout(config, policy, name, num_envs, seconds,
                                                        _forward_and_yaw, pushes=pushes)
        falls = falls * alive
        weight = jnp.maximum(jnp.sum(alive), 1.0)
        fell_mask = jnp.sum(falls, axis=0) > 0
        fell = int(jnp.sum(fell_mask))
        report[name] = {
            "command_vx": command["vx_range"][0], "command_yaw_rate": command["yaw_rate_range"][0],
            "mean_vx": float(jnp.sum(vx * alive) / weight),
            "mean_yaw_rate": float(jnp.sum(yaw * alive) / weight),
            "episodes_with_fall": fell / num_envs,
            "episodes_with_fall_ci95": wilson_interval(fell, num_envs),
            "falls_per_minute": float(jnp.sum(falls) / num_envs / (seconds / 60)),
            # episode i meets the same robot, randomization and kicks in every run's report
            "episodes_fallen": [int(i) for i in jnp.flatnonzero(fell_mask)],
        }
    return report


TARGETS = {"forward_speed_within": 0.25, "turn_rate_within": 0.30, "stand_speed_below": 0.05,
           "stand_turn_below": 0.1, "episodes_with_fall_below": 0.05}
"""The walk task's acceptance targets: forward mean speed within 25% of the command, turn
rate within 30%, standing drift under 5 cm/s and 0.1 rad/s, under 5% of episodes falling."""


def check_targets(report: dict) -> dict[str, bool]:
    """Which of `TARGETS` a `walk_report` meets, by name, plus 'all'."""
    fwd, turn, stand = report["forward_0.3"], report["turn_0.5"], report["stand"]
    t = TARGETS
    result = {
        "forward_speed": abs(fwd["mean_vx"] - fwd["command_vx"])
        <= t["forward_speed_within"] * fwd["command_vx"],
        "turn_rate": abs(turn["mean_yaw_rate"] - turn["command_yaw_rate"])
        <= t["turn_rate_within"] * turn["command_yaw_rate"],
        "stand_still": abs(stand["mean_vx"]) < t["stand_speed_below"]
        and abs(stand["mean_yaw_rate"]) < t["stand_turn_below"],
        "falls": max(r["episodes_with_fall"] for r in report.values())
        < t["episodes_with_fall_below"],
    }
    result["all"] = all(result.values())
    return result


def steps_since(events) -> np.ndarray:
    """For each (step, env) of a (steps, envs) event mask, the steps since that env's latest
    event at or before it (0 on the event's own step); before any event, a number past
    every step (so `steps_since(e) < n` selects the n steps from each event on)."""
    events = np.asarray(events, bool)
    since = np.empty(events.shape, np.int64)
    count = np.full(events.shape[1:], events.shape[0] + 1, np.int64)
    for t in range(events.shape[0]):
        count = np.where(events[t], 0, count + 1)
        since[t] = count
    return since


def estimate_errors(estimate, truth, mask) -> dict:
    """How well `estimate` follows `truth`, both (steps, envs, k), over the (steps, envs)
    `mask`: per component the RMS error, the truth's standard deviation (the RMS error of
    guessing its mean) and the share of its variance explained, 1 - MSE / variance."""
    estimate, truth = np.asarray(estimate, np.float64), np.asarray(truth, np.float64)
    mask = np.asarray(mask, bool)
    e, t = estimate[mask], truth[mask]
    if not len(t):
        return {"samples": 0}
    mse, var = np.mean(np.square(e - t), axis=0), np.var(t, axis=0)
    explained = np.where(var > 0, 1.0 - mse / np.where(var > 0, var, 1.0), np.nan)
    return {"samples": int(len(t)), "rms_error": np.sqrt(mse).round(4).tolist(),
            "truth_std": np.sqrt(var).round(4).tolist(),
            "variance_explained": explained.round(3).tolist()}


def steps_before(events, n: int) -> np.ndarray:
    """(steps, envs) mask of the `n` steps before each event of a (steps, envs) event mask,
    the event's own step excluded."""
    events = np.asarray(events, bool)
    since_reversed = steps_since(events[::-1])[::-1]
    return (since_reversed >= 1) & (since_reversed <= n)


def saturation(actions, masks: dict, threshold: float = 0.95) -> dict:
    """How often a policy's actions, (steps, envs, joints) in [-1, 1], sit at the end of
    their range (|a| > `threshold`, where the joint target cannot go further) over each
    (steps, envs) mask of `masks`: the share of steps with any joint there, per joint the
    share and the mean |a|."""
    actions = np.abs(np.asarray(actions, np.float64))
    out = {}
    for name, mask in masks.items():
        a = actions[np.asarray(mask, bool)]
        if not len(a):
            out[name] = {"steps": 0}
            continue
        at_limit = a > threshold
        out[name] = {"steps": int(len(a)), "any_joint": float(at_limit.any(axis=-1).mean()),
                     "per_joint": at_limit.mean(axis=0).round(4).tolist(),
                     "mean_abs_action": a.mean(axis=0).round(3).tolist()}
    return out
