"""Evaluate a trained walk run under full randomization and file the results.

    python benchmarks/evaluate_walk.py runs/<name> [benchmarks/results/<prefix>]

Writes <prefix>.json (scenario results, training summary, versions) and copies the run's
learning curve to <prefix>_learning_curve.png.
"""

import json
import shutil
import sys
from pathlib import Path

import jax

import mjxwalk
from mjxwalk import bench
from mjxwalk.training import checkpoint, evaluate, ppo
from mjxwalk.training.config import TrainConfig
from mjxwalk.training.run import build_env


def main(run_dir: Path, prefix: Path) -> None:
    saved = json.loads((run_dir / "config.json").read_text())
    train = saved["train"]
    train = {k: tuple(v) if isinstance(v, list) and k != "env_overrides" else v
             for k, v in train.items()}
    train["env_overrides"] = tuple((k, v) for k, v in train["env_overrides"])
    config = TrainConfig(**train)
    env = build_env(config)
    networks = ppo.make_networks(config, env.observation_size, env.action_size)
    like = ppo.init_state(config, networks, env.observation_size, jax.random.PRNGKey(0))
    step, state = checkpoint.restore(checkpoint.manager(run_dir / "checkpoints", 3), like)
    from brax.training.agents.ppo import networks as ppo_networks

    report = evaluate.walk_report(config, ppo_networks.make_inference_fn(networks), state)
    summary = json.loads((run_dir / "summary.json").read_text())
    out = {"run": str(run_dir), "checkpoint_env_steps": step, "training": summary,
           "train_config": saved["train"], "evaluation_20s_under_randomization": report,
           "targets": evaluate.TARGETS, "targets_met": evaluate.check_targets(report),
           "versions": bench.versions()}
    prefix.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.json").write_text(json.dumps(out, indent=1))
    shutil.copy(run_dir / "report.png", f"{prefix}_learning_curve.png")
    print(json.dumps({"report": report, "targets_met": out["targets_met"]}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"))
