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

from mjxwalk.training.evaluate import paired_fall_test

KEY = "evaluation_20s_under_randomization"


def compare(a: dict, b: dict) -> dict:
    if a["episodes_per_scenario"] != b["episodes_per_scenario"]:
        raise SystemExit(f"different episode counts ({a['episodes_per_scenario']} and "
                         f"{b['episodes_per_scenario']}): pair reports of the same size")
    out = {}
    for name, ra in a[KEY].items():
        rb = b[KEY][name]
        if "episodes_fallen" not in ra or "episodes_fallen" not in rb:
            raise SystemExit(f"{name}: a report without episodes_fallen; evaluate that run "
                             "again with benchmarks/evaluate_walk.py")
        out[name] = {"falls_a": ra["episodes_with_fall"], "falls_b": rb["episodes_with_fall"],
                     **paired_fall_test(ra["episodes_fallen"], rb["episodes_fallen"])}
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    a, b = (json.loads(Path(p).read_text()) for p in sys.argv[1:])
    print(json.dumps({"a": sys.argv[1], "b": sys.argv[2], **compare(a, b)}, indent=1))
