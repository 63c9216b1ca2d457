"""Evaluate a trained walk run under full randomization and file the results.

    python benchmarks/evaluate_walk.py runs/<name> [benchmarks/results/<prefix>] [episodes]

Episodes per scenario default to 64: the share of episodes with a fall is then known to
about ±12 points at 40% (the report gives its 95% interval); 256 halves that. Writes
<prefix>.json (scenario results, training summary, versions) and copies the run's learning
curve to <prefix>_learning_curve.png.
"""

import dataclasses
import json
import shutil
import sys
from pathlib import Path

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.run import load_run


def main(run_dir: Path, prefix: Path, episodes: int = 64) -> None:
    config, _, make_policy, step, state = load_run(run_dir)
    report = evaluate.walk_report(config, make_policy, state, num_envs=episodes)
    summary = json.loads((run_dir / "summary.json").read_text())
    out = {"run": str(run_dir), "checkpoint_env_steps": step, "episodes_per_scenario": episodes,
           "training": summary,
           "train_config": dataclasses.asdict(config),
           "env_config": json.loads((run_dir / "config.json").read_text())["env"],
           evaluate.REPORT_KEY: report,
           "targets": evaluate.TARGETS, "targets_met": evaluate.check_targets(report),
           "versions": bench.versions()}
    results.write(f"{prefix}.json", out)
    if (run_dir / "report.png").exists():
        shutil.copy(run_dir / "report.png", f"{prefix}_learning_curve.png")
    print(results.dumps({"report": report, "targets_met": out["targets_met"]}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"),
         int(sys.argv[3]) if len(sys.argv) > 3 else 64)
