"""Ship a trained policy with mjxwalk: copy what a finished run keeps of it besides its
checkpoints into models/policies/<name>/, with trained.json saying how it was trained and
what its walk report measured.

    python benchmarks/ship_policy.py runs/<name> <policy name> benchmarks/results/<report>.json

The report must be `evaluate_walk.py`'s, of this run at its final step (the step of the
policy_params.msgpack the run wrote when it ended), so the figures filed with the policy
are its own. `load_run`, the evaluation scripts (which take the policy's name for a run
directory) and `mjxwalk.policy_path(name)` then find it.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

from mjxwalk import results
from mjxwalk.policies import RUN_FILES

POLICIES = Path(__file__).resolve().parents[1] / "models" / "policies"
"""The repository's folder of shipped policies (the package links to it as mjxwalk/_policies)."""


def main(run_dir: Path, name: str, report_path: Path) -> None:
    missing = [f for f in RUN_FILES if not (run_dir / f).is_file()]
    if missing:
        sys.exit(f"{run_dir}: no {', '.join(missing)}; is it a finished run?")
    report = json.loads(report_path.read_text())
    steps = json.loads((run_dir / "summary.json").read_text())["env_steps"]
    of_this_run = (Path(report.get("run", "")).resolve() == run_dir.resolve()
                   and report.get("checkpoint_env_steps") == steps)
    if not of_this_run or "targets_met" not in report or "evaluation_env_overrides" in report:
        sys.exit(f"{report_path}: not a walk report of {run_dir} at its final {steps:,} steps, "
                 "with the report's kicks and no --set (it is of "
                 f"{report.get('run')} at step {report.get('checkpoint_env_steps')}); run "
                 f"benchmarks/evaluate_walk.py {run_dir} first")
    scenarios = report["evaluation_20s_under_randomization"]
    trained = {
        "name": name, "env_steps": steps, "how_trained": report.get("how_trained"),
        "walk_report": str(report_path), "episodes_per_scenario": report["episodes_per_scenario"],
        "pushes": report["pushes"],
        "scenarios": {k: {f: v[f] for f in ("command_vx", "command_yaw_rate", "mean_vx",
                                             "mean_yaw_rate", "episodes_with_fall",
                                             "episodes_with_fall_ci95")}
                      for k, v in scenarios.items()},
        "targets_met": report["targets_met"], "versions": report["versions"]}
    folder = POLICIES / name
    folder.mkdir(parents=True, exist_ok=True)
    for f in RUN_FILES:
        shutil.copy(run_dir / f, folder / f)
    results.write(folder / "trained.json", trained)
    print(f"shipped {run_dir} at {steps:,} steps as {folder}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", type=Path, help="the finished run (runs/<name>)")
    p.add_argument("name", help="the shipped policy's name (models/policies/<name>)")
    p.add_argument("report", type=Path, help="evaluate_walk.py's JSON of the run")
    a = p.parse_args()
    main(a.run_dir, a.name, a.report)
