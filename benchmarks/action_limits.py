"""Whether a walk policy runs out of action range: how often its joint targets sit at the
end of the action window (`action_scale` rad either side of the default pose) while it walks,
after kicks and in the last moments before a fall, and how fast it walks when commanded the
top of its command range.

    python benchmarks/action_limits.py runs/<name> [benchmarks/results/<prefix>] [episodes]
        [--set FIELD=JSON ...]

Writes <prefix>_action_limits.json: the forward scenario of the walk report (its kicks,
deterministic actions, 20 s) split into steady walking (no kick in the last `AFTER_S` x 2 and
no fall within `BEFORE_S`), the `AFTER_S` after each kick and the `BEFORE_S` before each fall;
then the mean forward speed over the last half of 10 s episodes without kicks at 0.3 m/s and
at the top of the run's forward command range.
"""

from pathlib import Path

import jax
import numpy as np

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.run import load_run

import _cli

AFTER_S = 0.6
BEFORE_S = 0.6
THRESHOLD = 0.95
"""|action| above which a joint counts as at the end of its range (the policy's tanh never
quite reaches 1)."""


def saturation_under_kicks(config, policy, num_envs: int, seconds: float) -> dict:
    def record(s):
        return s.info["walk"].last_action, s.metrics["pushes"], s.metrics["falls"]

    env, ((actions, pushes, falls), alive) = evaluate.scenario_rollout(
        config, policy, "forward_0.3", num_envs, seconds, record)
    actions, pushes, falls, alive = (np.asarray(x) for x in jax.device_get(
        (actions, pushes, falls, alive)))
    alive = alive > 0
    after_n, before_n = round(AFTER_S / env.dt), round(BEFORE_S / env.dt)
    since_kick = evaluate.steps_since(pushes > 0)
    before_fall = evaluate.steps_before((falls > 0) & alive, before_n)
    masks = {"steady": alive & (since_kick >= 2 * after_n) & ~before_fall,
             "after_kick": alive & (since_kick < after_n),
             "before_fall": alive & before_fall}
    out = evaluate.saturation(actions, masks, THRESHOLD)
    return {"joints": list(env.robot.joint_names),
            "action_scale": env.robot.array("action_scale").tolist(), **out}


def top_speed(config, policy, vx: float, num_envs: int, seconds: float = 10.0) -> dict:
    command = {"vx_range": (vx, vx), "vy_range": (0.0, 0.0), "yaw_rate_range": (0.0, 0.0)}
    env, ((forward, _, falls), alive) = evaluate.command_rollout(
        config, policy, command, num_envs, seconds, evaluate._forward_and_yaw,
        pushes={"enabled": False})
    steps = int(round(seconds / env.dt))
    forward, falls, alive = jax.device_get((forward, falls, alive))
    late = slice(steps // 2, None)
    weight = max(float(np.sum(alive[late])), 1.0)
    return {"command_vx": vx, "mean_vx_last_half": float(np.sum(forward[late] * alive[late]) / weight),
            "episodes_with_fall": float(np.mean(np.sum(falls * alive, axis=0) > 0))}


def main(run_dir: Path, prefix: Path, num_envs: int = 128, seconds: float = 20.0,
         overrides: tuple = ()) -> None:
    config, env, make_policy, step, state = load_run(run_dir, overrides)
    policy = evaluate.policy_fn(make_policy, state, deterministic=True)
    top = env.config.commands.vx_range[1]
    out = {"run": str(run_dir), "checkpoint_env_steps": step,
           **_cli.overrides_record(overrides), "episodes": num_envs,
           "seconds": seconds, "pushes": evaluate.ACCEPTANCE_PUSHES, "threshold": THRESHOLD,
           "after_kick_s": AFTER_S, "before_fall_s": BEFORE_S,
           "forward_0.3_under_kicks": saturation_under_kicks(config, policy, num_envs, seconds),
           "speed_without_kicks": [top_speed(config, policy, vx, num_envs // 2)
                                   for vx in (0.3, top)],
           "versions": bench.versions()}
    results.write(f"{prefix}_action_limits.json", out)
    sat = out["forward_0.3_under_kicks"]
    print(results.dumps({"any_joint_at_limit": {k: sat[k].get("any_joint")
                                                for k in ("steady", "after_kick", "before_fall")},
                         "speed_without_kicks": out["speed_without_kicks"]}))


if __name__ == "__main__":
    args, overrides = _cli.parse(_cli.parser(__doc__, 128))
    main(args.run_dir, args.prefix, args.episodes, overrides=overrides)
