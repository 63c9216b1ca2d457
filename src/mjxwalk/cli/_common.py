"""Bits every command shares."""

from __future__ import annotations

import os
import sys


def quiet_imports() -> None:
    """Headless rendering by default, and MJX imported without its warp notice."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mjxwalk.compat  # noqa: F401  (imports mjx quietly)


def not_available(command: str, issue: str) -> int:
    print(f"{command} is not available yet in mjxwalk {_version()}: it arrives with {issue}.\n"
          "Today you can run the walk environment demo: mjxwalk-demo", file=sys.stderr)
    return 2


def _version() -> str:
    from mjxwalk import __version__

    return __version__
