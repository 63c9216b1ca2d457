"""Compare two runs' walk reports episode by episode, or their push files kick by kick
(paired: the same seeds give episode i the same robot, randomization and kicks in every
file).

    python benchmarks/compare_walk.py benchmarks/results/<a>.json benchmarks/results/<b>.json
    python benchmarks/compare_walk.py benchmarks/results/<a>_pushes.json benchmarks/results/<b>_pushes.json

Prints, per scenario, the episodes (or kicks) only one of them fell in, and the exact
McNemar p-value. Files written before `episodes_fallen` or the kick lists were recorded
cannot be paired: evaluate the run again.
"""

import json
import sys
from pathlib import Path

from mjxwalk.training.evaluate import REPORT_KEY, compare_push_files, compare_walk_files

if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    a, b = (json.loads(Path(p).read_text()) for p in sys.argv[1:])
    try:
        compare = compare_walk_files if REPORT_KEY in a else compare_push_files
        print(json.dumps({"a": sys.argv[1], "b": sys.argv[2], **compare(a, b)}, indent=1))
    except ValueError as e:
        raise SystemExit(f"compare_walk: {e}") from None
