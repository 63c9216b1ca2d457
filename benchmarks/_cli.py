"""The command line the evaluation scripts share: the run, where to file, how many
episodes, and `--set FIELD=JSON` to evaluate under an env field changed after the run's own
(as `mjxwalk-train --set` changes it for training)."""

import argparse
from pathlib import Path

from mjxwalk.cli.train import parse_overrides
from mjxwalk.policies import list_policies, policy_path

SCRIPT_FIELDS = ("pushes", "commands")
"""Env fields each script sets itself for its scenarios (`evaluate.env_with_fixed_commands`):
a `--set` of them would be overwritten, so it is refused rather than recorded."""


def run_dir(text: str) -> Path:
    """A run directory, or the name of a policy mjxwalk ships (`mjxwalk.list_policies()`)."""
    if not Path(text).exists() and text in list_policies():
        return policy_path(text)
    return Path(text)


def _episodes(text: str) -> int:
    n = int(text)
    if n < 2:
        raise argparse.ArgumentTypeError(f"episodes must be at least 2, got {n}")
    return n


def parser(doc: str, episodes: int) -> argparse.ArgumentParser:
    """run_dir, [prefix], [episodes] and --set; `doc`'s first paragraph describes it."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("run_dir", type=run_dir,
                   help="the run directory (runs/<name>), or a shipped policy's name "
                        f"({', '.join(list_policies()) or 'none yet'})")
    # defaults written out: parse_intermixed_args hides them from %(default)s
    p.add_argument("prefix", type=Path, nargs="?", default=Path("benchmarks/results/walk_cpu"),
                   help="where the result files go, <prefix>*.json (default "
                        "benchmarks/results/walk_cpu)")
    p.add_argument("episodes", type=_episodes, nargs="?", default=episodes,
                   help=f"episodes per scenario (default {episodes})")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="evaluate with this env config field changed (after the run's own)")
    return p


def parse(p: argparse.ArgumentParser) -> tuple[argparse.Namespace, tuple]:
    """The arguments (options may come between the positionals) and the `--set` overrides."""
    args = p.parse_intermixed_args()
    overrides = tuple(parse_overrides(args.set, p.prog))
    if fixed := sorted({f for f, _ in overrides if f in SCRIPT_FIELDS}):
        p.error(f"--set {', '.join(fixed)}: each scenario sets its own kicks and command "
                "(evaluate_walk.py --no-pushes evaluates without kicks)")
    return args, overrides


def overrides_record(overrides: tuple) -> dict:
    """What a result file says of its evaluation's overrides: nothing when there are none."""
    return {"evaluation_env_overrides": [list(o) for o in overrides]} if overrides else {}
