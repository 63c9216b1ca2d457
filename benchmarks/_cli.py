"""The command line the evaluation scripts share: the run, where to file, how many
episodes, and `--set FIELD=JSON` to evaluate under an env field changed after the run's own
(as `mjxwalk-train --set` changes it for training)."""

import argparse
from pathlib import Path

from mjxwalk.cli.train import parse_overrides


def parser(doc: str, episodes: int) -> argparse.ArgumentParser:
    """run_dir, [prefix], [episodes] and --set; `doc`'s first paragraph describes it."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("prefix", type=Path, nargs="?", default=Path("benchmarks/results/walk_cpu"))
    p.add_argument("episodes", type=int, nargs="?", default=episodes)
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="evaluate with this env config field changed (after the run's own)")
    return p


def parse(p: argparse.ArgumentParser) -> tuple[argparse.Namespace, tuple]:
    """The arguments (options may come between the positionals) and the `--set` overrides."""
    args = p.parse_intermixed_args()
    return args, tuple(parse_overrides(args.set, p.prog))


def overrides_record(overrides: tuple) -> dict:
    """What a result file says of its evaluation's overrides: nothing when there are none."""
    return {"evaluation_env_overrides": [list(o) for o in overrides]} if overrides else {}
