"""Pair two runs' evaluation files: the same seeds give episode i the same robot,
randomization and kicks in every run's file, so falls compare episode by episode (or kick
by kick), which separates runs that the two fall shares alone cannot.

`compare_files` takes any two files of one kind: walk reports (`benchmarks/evaluate_walk.py`),
push files (`benchmarks/push_recovery.py`) or fall-cause files (`benchmarks/fall_causes.py`).
"""

from __future__ import annotations

import json
import math

from mjxwalk.training.evaluate import ACCEPTANCE_PUSHES, REPORT_KEY
from mjxwalk.training.kicks import PAIRING_COLUMNS


def paired_fall_test(fallen_a, fallen_b) -> dict:
    """Compare two policies' falls on the same trials: `fallen_a` and `fallen_b` name the
    trials each fell in (episode numbers, or (episode, control step) of kicks both met).
    Returns the trials only one of them fell in and the exact two-sided McNemar p-value
    that both fall as often. Pairing discounts the trials that are hard or easy for any
    policy, so it separates runs an unpaired comparison of the two shares cannot."""
    a, b = set(fallen_a), set(fallen_b)
    only_a, only_b = len(a - b), len(b - a)
    n, k = only_a + only_b, min(only_a, only_b)
    # under the null each discordant episode is a fair coin: P(X <= k) doubled
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0
    return {"both": len(a & b), "only_a": only_a, "only_b": only_b, "p_value": p}


def _evaluated_alike(a: dict, b: dict, keys: tuple[str, ...]) -> None:
    """Raise ValueError naming the first of `keys` on which two files of one kind differ, or
    the scenarios only one of them has."""
    for key in keys:
        if a[key] != b[key]:
            raise ValueError(f"different {key} ({a[key]} and {b[key]}): pair files evaluated "
                             "alike")
    _same_scenarios(a["scenarios"], b["scenarios"])


def _same_scenarios(a: dict, b: dict) -> None:
    """Raise ValueError naming the scenarios only one of two files' scenario dicts has."""
    if a.keys() != b.keys():
        raise ValueError(f"different scenarios: only in a {sorted(a.keys() - b.keys())}, only "
                         f"in b {sorted(b.keys() - a.keys())}")


def _report_pushes(f: dict) -> dict:
    """The pushes a walk report was evaluated under, as JSON gives them back (reports from
    before the `pushes` key were all evaluated under `ACCEPTANCE_PUSHES`)."""
    return json.loads(json.dumps(f.get("pushes", ACCEPTANCE_PUSHES)))


def compare_walk_files(a: dict, b: dict) -> dict:
    """`paired_fall_test` per scenario between two files of `benchmarks/evaluate_walk.py`
    (its JSON as dicts), with both runs' shares of episodes with a fall. Raises ValueError
    for files that cannot be paired: different scenarios or episode counts, reports under
    different pushes, or a report written before `episodes_fallen` was recorded."""
    if a["episodes_per_scenario"] != b["episodes_per_scenario"]:
        raise ValueError(f"different episode counts ({a['episodes_per_scenario']} and "
                         f"{b['episodes_per_scenario']}): pair reports of the same size")
    pushes_a, pushes_b = _report_pushes(a), _report_pushes(b)
    if pushes_a != pushes_b:
        raise ValueError(f"different pushes ({pushes_a} and {pushes_b}): pair reports "
                         "evaluated alike")
    _same_scenarios(a[REPORT_KEY], b[REPORT_KEY])
    out = {}
    for name, ra in a[REPORT_KEY].items():
        rb = b[REPORT_KEY][name]
        if "episodes_fallen" not in ra or "episodes_fallen" not in rb:
            raise ValueError(f"{name}: a report without episodes_fallen; evaluate that run "
                             "again with benchmarks/evaluate_walk.py")
        out[name] = {"falls_a": ra["episodes_with_fall"], "falls_b": rb["episodes_with_fall"],
                     **paired_fall_test(ra["episodes_fallen"], rb["episodes_fallen"])}
    return out


def compare_push_files(a: dict, b: dict) -> dict:
    """`paired_fall_test` per scenario over the kicks that two files of
    `benchmarks/push_recovery.py` (its JSON as dicts) share. A kick is the same in both when
    it lands in the same episode at the same control step: its time and world-frame
    velocity follow the episode's seed, not the policy. Kicks only one run met, after the
    other had already fallen, are left out and counted. Raises ValueError for files that
    cannot be paired: no kick lists (not a push file, or one written before kicks were
    listed), kick lists without one of `PAIRING_COLUMNS`, different scenarios, episode
    counts or fall windows. Files with more columns pair with files with fewer."""
    columns = {}
    for name, f in (("a", a), ("b", b)):
        if "kick_columns" not in f:
            raise ValueError(f"file {name} lists no kicks: pair two files of "
                             "benchmarks/push_recovery.py, evaluated again if written before "
                             "kicks were listed")
        missing = [c for c in PAIRING_COLUMNS if c not in f["kick_columns"]]
        if missing:
            raise ValueError(f"file {name} has kick columns {f['kick_columns']}, without "
                             f"{missing}")
        columns[name] = tuple(f["kick_columns"].index(c) for c in PAIRING_COLUMNS)
    _evaluated_alike(a, b, ("episodes", "seconds", "fall_window_s"))
    out = {}
    for name, sa in a["scenarios"].items():
        ka, kb = ({(k[episode], k[step]): k[fell] for k in s["kicks"]}
                  for s, (episode, step, fell) in ((sa, columns["a"]),
                                                   (b["scenarios"][name], columns["b"])))
        shared = ka.keys() & kb.keys()
        out[name] = {"kicks_paired": len(shared), "kicks_unpaired": len(ka.keys() ^ kb.keys()),
                     **paired_fall_test([k for k in shared if ka[k]],
                                        [k for k in shared if kb[k]])}
    return out


def compare_fall_cause_files(a: dict, b: dict) -> dict:
    """`paired_fall_test` per scenario between two files of `benchmarks/fall_causes.py` (its
    JSON as dicts), with both runs' shares of episodes with a fall. Raises ValueError for
    files that cannot be paired: different scenarios, episode counts or durations, or a file
    written before `episodes_fallen` was recorded."""
    _evaluated_alike(a, b, ("episodes", "seconds"))
    out = {}
    for name, sa in a["scenarios"].items():
        sb = b["scenarios"][name]
        if "episodes_fallen" not in sa or "episodes_fallen" not in sb:
            raise ValueError(f"{name}: a fall-cause file without episodes_fallen; evaluate "
                             "that run again with benchmarks/fall_causes.py")
        out[name] = {"falls_a": sa["all"]["fall_share"], "falls_b": sb["all"]["fall_share"],
                     **paired_fall_test(sa["episodes_fallen"], sb["episodes_fallen"])}
    return out


def file_kind(f: dict) -> str:
    """'walk report', 'push file' or 'fall-cause file': which script wrote `f`. Raises
    ValueError for anything else."""
    if REPORT_KEY in f:
        return "walk report"
    if "fall_window_s" in f:
        return "push file"
    if f.get("pushes") == "off" and "scenarios" in f:
        return "fall-cause file"
    raise ValueError("not a file of benchmarks/evaluate_walk.py, push_recovery.py or "
                     "fall_causes.py")


COMPARE = {"walk report": compare_walk_files, "push file": compare_push_files,
           "fall-cause file": compare_fall_cause_files}


def compare_files(a: dict, b: dict) -> dict:
    """Pair two evaluation files of the same kind (`file_kind`): `{"kind": ..., scenario:
    paired_fall_test and the two fall shares or kick counts, ...}`, and `"evaluated_under"`
    (each file's `evaluation_env_overrides`, from `--set`) where either has some: those
    change what the episodes draw unless they only undo a run's own training change, which
    the reader has to judge. Raises ValueError, naming the problem, for files of different
    kinds or that cannot be paired."""
    kind_a, kind_b = file_kind(a), file_kind(b)
    if kind_a != kind_b:
        raise ValueError(f"a {kind_a} and a {kind_b} cannot be paired: give two of one kind")
    overrides = {name: f.get("evaluation_env_overrides", []) for name, f in (("a", a), ("b", b))}
    shown = {"evaluated_under": overrides} if any(overrides.values()) else {}
    return {"kind": kind_a, **shown, **COMPARE[kind_a](a, b)}
