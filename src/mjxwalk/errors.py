"""Errors that name the problem and the file it came from."""

from __future__ import annotations

from pathlib import Path


class MjxwalkError(Exception):
    """Base class of the errors mjxwalk raises on purpose."""


class SpecError(MjxwalkError, ValueError):
    """A robot spec or its MJCF file is wrong; the message names the file and the problem."""

    def __init__(self, path: str | Path | None, message: str):
        self.path = None if path is None else Path(path)
        self.problem = message
        super().__init__(f"{self.path}: {message}" if self.path else message)


class ContractError(MjxwalkError, ValueError):
    """A policy contract is malformed or disagrees with what it is used with."""


class ConfigError(MjxwalkError, ValueError):
    """A configuration value is invalid (checked before anything compiles)."""
