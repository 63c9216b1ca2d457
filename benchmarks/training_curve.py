"""File a run's training as it stands: its summary, training config and learning curve
sampled every 0.5M steps, for runs still in progress as well as finished ones.

    python benchmarks/training_curve.py runs/<name> benchmarks/results/<prefix>
        [--how-trained "the command and what it changed"] [--status "finished"]

Writes <prefix>_training.json and copies the run's learning curve (report.png) to
<prefix>_learning_curve.png. The trainer draws report.png and summary.json at the end of
each call, so for a call still running they show where the previous one ended; the curve in
the JSON is read from metrics.jsonl and is current.
"""

import argparse
import json
import shutil
from pathlib import Path

from mjxwalk import bench, results
from mjxwalk.training import monitor

CURVE_EVERY = 500_000
"""Steps between the curve's points."""
CURVE_KEYS = ("env_steps", "wall_s", "env_steps_per_s", "env/reward", "env/falls",
              "env/lin_vel_error", "env/yaw_rate_error", "loss/policy_dist_mean_std",
              "train/discounting", "loss/estimator_loss", "env/gait_frequency",
              "env/gait_phase_offset", "env/gait_phase_offset_abs", "loss/v_loss",
              "loss/policy_grad_norm", "loss/value_grad_norm")
"""What each point keeps of a metrics row, where it has it (the rest stays in the run's
metrics.jsonl)."""


def curve(rows: list[dict]) -> list[dict]:
    return [{k: row[k] for k in CURVE_KEYS if k in row}
            for row in monitor.curve_points(rows, CURVE_EVERY)]


def main(run_dir: Path, prefix: Path, how_trained: str | None, status: str | None) -> None:
    config = json.loads((run_dir / "config.json").read_text())
    summary_path = run_dir / "summary.json"
    out = {**({"how_trained": how_trained} if how_trained else {}),
           **({"status": status} if status else {}),
           "run": str(run_dir),
           "training": json.loads(summary_path.read_text()) if summary_path.exists() else None,
           "train_config": config["train"],
           "curve_every_0.5M_steps": curve(monitor.read_metrics(run_dir)),
           "versions": bench.versions()}
    results.write(f"{prefix}_training.json", out)
    if (run_dir / "report.png").exists():
        shutil.copy(run_dir / "report.png", f"{prefix}_learning_curve.png")
    print(f"wrote {prefix}_training.json")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("prefix", type=Path)
    parser.add_argument("--how-trained", help="filed first: the command and what it changed")
    parser.add_argument("--status", help="e.g. 'finished', or where a run in progress stands")
    args = parser.parse_args()
    main(args.run_dir, args.prefix, args.how_trained, args.status)
