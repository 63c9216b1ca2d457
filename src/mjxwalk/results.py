"""Result files of `benchmarks/` and of the evaluation: JSON that reads and diffs well.

`json.dumps(indent=...)` puts every number of a list on its own line, so a push file's few
hundred kicks of five fields each took thousands of lines. Here a list of plain values stays
on one line (a kick, a list of fallen episodes), so does an object of plain values that fits
in `FLAT_OBJECT_WIDTH` characters (a share and its count), and everything that nests is
indented one entry per line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


FLAT_OBJECT_WIDTH = 100
"""Longest object of plain values kept on one line, characters."""


def _key(k) -> str:
    """An object key as `json.dumps` writes it (True as "true", 1.5 as "1.5"); raises
    TypeError, as it does, for a key JSON cannot have."""
    return json.dumps({k: 0})[1:-4]


def _nested(values) -> bool:
    return any(isinstance(x, (dict, list, tuple)) for x in values)


def dumps(obj: Any, indent: int = 1, _level: int = 0) -> str:
    """`obj` as JSON, indented where it nests (see the module docstring). Loads back equal,
    as `json.dumps` would (NaN included)."""
    pad, inner = " " * (indent * _level), " " * (indent * (_level + 1))
    if isinstance(obj, dict) and not _nested(obj.values()):
        line = json.dumps(obj)
        if len(line) <= FLAT_OBJECT_WIDTH:
            return line
    if isinstance(obj, dict) and obj:
        items = (f"{inner}{_key(k)}: {dumps(v, indent, _level + 1)}"
                 for k, v in obj.items())
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(obj, (list, tuple)) and _nested(obj):
        items = (f"{inner}{dumps(x, indent, _level + 1)}" for x in obj)
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(obj)


def write(path: str | Path, obj: Any) -> Path:
    """Write `obj` to `path` as `dumps` gives it (parent folders made), ending in a newline."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(obj) + "\n")
    return path
