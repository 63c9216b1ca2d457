"""Task registry: `make_env(task, robot, **overrides)` and `list_tasks()`."""

from __future__ import annotations

import importlib
from typing import Any

from mjxwalk import compat  # noqa: F401  (first: imports MJX without its warp notice)
from mjxwalk.config import WalkConfig, override
from mjxwalk.errors import ConfigError
from mjxwalk.robot import RobotSpec, load_robot

# task -> (module, env class, default config)
_TASKS: dict[str, tuple[str, str, Any]] = {
    "walk": ("mjxwalk.envs.walk", "WalkEnv", WalkConfig()),
}


def list_tasks() -> list[str]:
    """Names accepted by `make_env`."""
    return sorted(_TASKS)


def make_env(task: str = "walk", robot: str | RobotSpec | None = None, config: Any = None,
             **overrides: Any):
    """Build a task's env for a built-in robot name or a spec file path (default: kidbot).

    `overrides` replace fields of the task's config by name, e.g.
    `make_env("walk", terrain="rough", commands={"vx_range": (0.0, 0.6)})`.
    """
    if task not in _TASKS:
        raise ConfigError(f"unknown task {task!r}; available: {', '.join(list_tasks())}")
    module, cls, default = _TASKS[task]
    config = override(config if config is not None else default, **overrides)
    compat.enable_compilation_cache()
    env_cls = getattr(importlib.import_module(module), cls)
    return env_cls(load_robot(robot), config)
