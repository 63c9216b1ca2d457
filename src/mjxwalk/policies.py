"""The trained policies mjxwalk ships: runs kept without their checkpoints.

Each is a folder in the repository's models/policies (`mjxwalk/_policies` links to it and
wheels copy it) holding what `mjxwalk-train` writes beside its checkpoints: config.json,
contract.json, summary.json, policy_params.msgpack, and trained.json, which says how it was
trained and what its walk report measured. `mjxwalk.training.run.load_run` and the
evaluation scripts in benchmarks/ take such a folder as they take a run directory.
"""

from __future__ import annotations

from pathlib import Path

from mjxwalk.errors import MjxwalkError

RUN_FILES = ("config.json", "contract.json", "summary.json", "policy_params.msgpack")
"""What a shipped policy keeps of its run: enough for `load_run`, not for `--resume`."""


def policies_dir() -> Path:
    """The folder holding the shipped policies, one sub-folder each."""
    return Path(__file__).resolve().parent / "_policies"


def list_policies() -> list[str]:
    """Names of the shipped policies."""
    root = policies_dir()
    if not root.is_dir():  # a checkout or wheel made without models/policies
        return []
    return sorted(p.name for p in root.iterdir() if (p / "policy_params.msgpack").is_file())


def policy_path(name: str) -> Path:
    """The folder of the shipped policy `name`, for `load_run` and the benchmark scripts."""
    if name not in (known := list_policies()):
        raise MjxwalkError(f"no shipped policy named {name!r}; mjxwalk ships "
                           f"{', '.join(known) or 'none'}")
    return policies_dir() / name
