"""Compare two runs' walk reports episode by episode (paired: the same seeds give episode i
the same robot, randomization and kicks in every report).

    python benchmarks/compare_walk.py benchmarks/results/<a>.json benchmarks/results/<b>.json

Prints, per scenario, both runs' shares of episodes with a fall, the episodes only one of
them fell in, and the exact McNemar p-value. Reports written before `episodes_fallen` was
recorded cannot be paired: evaluate the run again.
"""

import json
import sys
from pathlib import Path

from mjxwalk.training.evaluate import compare_walk_files

if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    a, b = (json.loads(Path(p).read_text()) for p in sys.argv[1:])
    try:
        print(json.dumps({"a": sys.argv[1], "b": sys.argv[2], **compare_walk_files(a, b)},
                         indent=1))
    except ValueError as e:
        raise SystemExit(f"compare_walk: {e}") from None
