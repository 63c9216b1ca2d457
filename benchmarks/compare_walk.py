"""Compare two runs' walk reports or fall-cause files episode by episode, or their push
files kick by kick (paired: the same seeds give episode i the same robot, randomization and
kicks in every file).

    python benchmarks/compare_walk.py benchmarks/results/<a>.json benchmarks/results/<b>.json
    python benchmarks/compare_walk.py benchmarks/results/<a>_pushes.json benchmarks/results/<b>_pushes.json
    python benchmarks/compare_walk.py benchmarks/results/<a>_fall_causes.json \
        benchmarks/results/<b>_fall_causes.json

Prints, per scenario, the episodes (or kicks) only one of them fell in, the exact McNemar
p-value, and the `--set` overrides either file was evaluated under. It refuses, naming the
problem, files of different kinds, scenarios, episode counts or pushes; files written before
the fallen episodes or the kick lists were recorded cannot be paired: evaluate the run again.
"""

import json
import sys
from pathlib import Path

from mjxwalk import results
from mjxwalk.training.compare import compare_files

if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    a, b = (json.loads(Path(p).read_text()) for p in sys.argv[1:])
    try:
        print(results.dumps({"a": sys.argv[1], "b": sys.argv[2], **compare_files(a, b)}))
    except ValueError as e:
        raise SystemExit(f"compare_walk: {e}") from None
