"""mjxwalk: train humanoid walking policies in MuJoCo-XLA, run them on a real servo robot.

Importing this package is light (no JAX): the heavy entry points are loaded on first use,
so the onboard runner and notebooks that only inspect a robot stay fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it; resolved lazily in __getattr__
_LAZY = {
    "make_env": "mjxwalk.envs",
    "list_tasks": "mjxwalk.envs",
    "list_robots": "mjxwalk.robot",
    "load_robot": "mjxwalk.robot",
    "RobotSpec": "mjxwalk.robot",
    "PolicyContract": "mjxwalk.contract",
    "list_policies": "mjxwalk.policies",
    "policy_path": "mjxwalk.policies",
    "train": "mjxwalk.training.run",
    "TrainConfig": "mjxwalk.training.config",
    "SpecError": "mjxwalk.errors",
    "ContractError": "mjxwalk.errors",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mjxwalk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
