"""How much of a walk policy's falling is its own exploration noise: the forward scenario's
first episodes under the run's full randomization, with the walk report's pushes and
without, acting deterministically (as the walk report and the robot do) and sampling
(as training does).

    python benchmarks/exploration_falls.py runs/<name> [benchmarks/results/<prefix>] [episodes]
        [--set FIELD=JSON ...]

Writes <prefix>_exploration_falls.json. Training's falls per step include the sampling
noise; the walk report's do not: this tells the two apart.
"""

from pathlib import Path

import jax
import numpy as np

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.run import load_run

import _cli


def fall_share(config, policy, pushes: dict, num_envs: int, seconds: float) -> dict:
    _, recorded = evaluate.scenario_rollout(config, policy, "forward_0.3", num_envs, seconds,
                                            lambda s: s.metrics["falls"], pushes=pushes)
    falls, alive = jax.device_get(recorded)
    fell = int(np.sum(np.sum(falls * alive, axis=0) > 0))
    return {"episodes_with_fall": fell / num_envs,
            "episodes_with_fall_ci95": evaluate.wilson_interval(fell, num_envs)}


def main(run_dir: Path, prefix: Path, num_envs: int = 128, seconds: float = 20.0,
         overrides: tuple = ()) -> None:
    config, _, make_policy, step, state = load_run(run_dir, overrides)
    conditions = {"pushes": evaluate.ACCEPTANCE_PUSHES, "no_pushes": {"enabled": False}}
    shares = {}
    for acting in ("deterministic", "sampled"):
        policy = evaluate.policy_fn(make_policy, state, deterministic=acting == "deterministic")
        for name, pushes in conditions.items():
            shares[f"{acting}/{name}"] = fall_share(config, policy, pushes, num_envs, seconds)
            print(acting, name, shares[f"{acting}/{name}"], flush=True)
    out = {"run": str(run_dir), "checkpoint_env_steps": step,
           **_cli.overrides_record(overrides), "scenario": "forward_0.3",
           "episodes": num_envs, "seconds": seconds, "results": shares,
           "versions": bench.versions()}
    results.write(f"{prefix}_exploration_falls.json", out)


if __name__ == "__main__":
    args, overrides = _cli.parse(_cli.parser(__doc__, 128))
    main(args.run_dir, args.prefix, args.episodes, overrides=overrides)
