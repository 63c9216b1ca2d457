"""Evaluate a trained walk run under full randomization and file the results.

    python benchmarks/evaluate_walk.py runs/<name> [benchmarks/results/<prefix>] [episodes]
        [--no-pushes] [--checkpoint STEP] [--set FIELD=JSON ...]
        [--how-trained "the command and what it changed"]

Episodes per scenario default to 64: the share of episodes with a fall is then known to
about ±12 points at 40% (the report gives its 95% interval); 256 halves that. The walk
report's kicks (`evaluate.ACCEPTANCE_PUSHES`) land in every episode unless `--no-pushes`.
The acceptance targets are judged under those kicks only: without them the file says
`targets_met_without_pushes` instead of `targets_met`. `--checkpoint` evaluates one of the
checkpoints the run kept (its env step) instead of the latest. `--set` changes an env config field
for the evaluation only, as `mjxwalk-train --set` does for training (a run trained on part
of a range is evaluated on the whole of it this way). Writes <prefix>.json (how it was
trained if given, the pushes, scenario results, training summary, versions) and copies the
run's learning curve to <prefix>_learning_curve.png.
"""

import dataclasses
import json
import shutil
from pathlib import Path

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.run import load_run, saved_config

import _cli


def main(run_dir: Path, prefix: Path, episodes: int = 64, pushes: dict = evaluate.ACCEPTANCE_PUSHES,
         how_trained: str | None = None, overrides: tuple = (),
         at_step: int | None = None) -> None:
    config, _, make_policy, step, state = load_run(run_dir, overrides, at_step)
    report = evaluate.walk_report(config, make_policy, state, num_envs=episodes, pushes=pushes)
    summary = json.loads((run_dir / "summary.json").read_text())
    met = "targets_met" if pushes == evaluate.ACCEPTANCE_PUSHES else "targets_met_without_pushes"
    out = {**({"how_trained": how_trained} if how_trained else {}),
           "run": str(run_dir), "checkpoint_env_steps": step, "episodes_per_scenario": episodes,
           "pushes": pushes,
           "training": summary,
           "train_config": dataclasses.asdict(saved_config(run_dir)),  # as trained
           "env_config": json.loads((run_dir / "config.json").read_text())["env"],
           **_cli.overrides_record(overrides),
           evaluate.REPORT_KEY: report,
           "targets": evaluate.TARGETS, met: evaluate.check_targets(report),
           "versions": bench.versions()}
    results.write(f"{prefix}.json", out)
    if (run_dir / "report.png").exists():
        shutil.copy(run_dir / "report.png", f"{prefix}_learning_curve.png")
    print(results.dumps({"report": report, met: out[met]}))


if __name__ == "__main__":
    parser = _cli.parser(__doc__, 64)
    parser.add_argument("--no-pushes", action="store_true",
                        help="no kicks in any episode (the report's kicks otherwise)")
    parser.add_argument("--checkpoint", type=int, metavar="STEP",
                        help="evaluate the checkpoint written at this env step (default: the latest)")
    parser.add_argument("--how-trained", help="filed first in the JSON: the command and what it changed")
    args, overrides = _cli.parse(parser)
    main(args.run_dir, args.prefix, args.episodes,
         {"enabled": False} if args.no_pushes else evaluate.ACCEPTANCE_PUSHES, args.how_trained,
         overrides, args.checkpoint)
