"""Pairing two runs' evaluation files: the McNemar test, and each kind of file, including
the ones that cannot be paired."""

import json

import pytest

from mjxwalk.training.compare import (compare_fall_cause_files, compare_files, compare_push_files,
                                      compare_walk_files, file_kind, paired_fall_test)
from mjxwalk.training.evaluate import ACCEPTANCE_PUSHES, REPORT_KEY
from mjxwalk.training.kicks import KICK_COLUMNS


def test_paired_fall_test_counts_and_closed_forms():
    # no episode where only one fell: nothing tells the runs apart
    assert paired_fall_test([1, 2], [2, 1]) == {"both": 2, "only_a": 0, "only_b": 0,
                                                "p_value": 1.0}
    # 10 discordant episodes, all one way: 2 * 0.5**10
    r = paired_fall_test(list(range(12)), [0, 1])
    assert (r["both"], r["only_a"], r["only_b"]) == (2, 10, 0)
    assert r["p_value"] == pytest.approx(2 * 0.5 ** 10)
    # 3 against 1: P(X <= 1 | n=4) doubled = 2 * 5/16
    assert paired_fall_test([0, 1, 2, 9], [3, 9])["p_value"] == pytest.approx(10 / 16)
    # symmetric in its arguments, and never above 1 for an even split
    assert paired_fall_test([5], [6])["p_value"] == 1.0
    assert paired_fall_test([1, 4, 7], [2])["p_value"] == paired_fall_test([2], [1, 4, 7])["p_value"]


def _file(fallen, episodes=4):
    row = {"episodes_with_fall": len(fallen) / episodes, "episodes_fallen": fallen}
    return {"episodes_per_scenario": episodes, REPORT_KEY: {"forward_0.3": row}}


def test_compare_walk_files_pairs_each_scenario():
    out = compare_walk_files(_file([0, 1, 2]), _file([2]))
    assert out["forward_0.3"] == {"falls_a": 0.75, "falls_b": 0.25, "both": 1, "only_a": 2,
                                  "only_b": 0, "p_value": 0.5}


def test_compare_walk_files_refuses_what_cannot_be_paired():
    with pytest.raises(ValueError, match="different episode counts"):
        compare_walk_files(_file([0], episodes=4), _file([0], episodes=8))
    old = _file([0])
    del old[REPORT_KEY]["forward_0.3"]["episodes_fallen"]  # a report from before pairing
    with pytest.raises(ValueError, match="without episodes_fallen"):
        compare_walk_files(old, _file([0]))
    no_pushes = {**_file([0]), "pushes": {"enabled": False}}
    with pytest.raises(ValueError, match="different pushes"):
        compare_walk_files(_file([0]), no_pushes)
    # a report from before the pushes were filed was evaluated under the acceptance kicks,
    # which a filed report gives back with lists for tuples
    filed = {**_file([1]), "pushes": json.loads(json.dumps(ACCEPTANCE_PUSHES))}
    assert compare_walk_files(_file([0]), filed)["forward_0.3"]["only_a"] == 1
    other = _file([0])
    other[REPORT_KEY]["stand"] = other[REPORT_KEY].pop("forward_0.3")
    with pytest.raises(ValueError, match=r"different scenarios: only in a \['forward_0.3'\]"):
        compare_walk_files(_file([0]), other)


def _push_file(kicks, episodes=4, fall_window_s=2.0):
    """kicks: (episode, control step, fell) per kick of the forward scenario."""
    return {"episodes": episodes, "seconds": 20.0, "fall_window_s": fall_window_s,
            "kick_columns": list(KICK_COLUMNS),
            "scenarios": {"forward_0.3": {"kicks": [[e, t, 0.3, 90.0, f, True, "left", 0.1]
                                                    for e, t, f in kicks]}}}


def test_compare_push_files_pairs_kicks_by_episode_and_step():
    a = _push_file([(0, 300, True), (1, 250, False), (1, 700, True), (2, 400, False)])
    # b survived episode 1's second kick, so met a third that a never did; a fell in
    # episode 3 before its first kick
    b = _push_file([(0, 300, True), (1, 250, False), (1, 700, False), (1, 900, True),
                    (2, 400, True), (3, 500, False)])
    out = compare_push_files(a, b)["forward_0.3"]
    assert out == {"kicks_paired": 4, "kicks_unpaired": 2, "both": 1, "only_a": 1, "only_b": 1,
                   "p_value": 1.0}


def test_compare_push_files_pairs_files_written_with_fewer_columns():
    # files from before the support and clock columns list five per kick
    old = _push_file([(0, 300, True), (1, 250, False)])
    old["kick_columns"] = list(KICK_COLUMNS[:5])
    old["scenarios"]["forward_0.3"]["kicks"] = [k[:5] for k in old["scenarios"]["forward_0.3"]["kicks"]]
    new = _push_file([(0, 300, False), (1, 250, False)])
    assert compare_push_files(old, new)["forward_0.3"]["only_a"] == 1
    assert compare_push_files(new, old)["forward_0.3"]["only_b"] == 1


def test_compare_push_files_refuses_what_cannot_be_paired():
    old = _push_file([(0, 300, True)])
    del old["kick_columns"]  # a file from before kicks were listed
    with pytest.raises(ValueError, match="lists no kicks"):
        compare_push_files(old, _push_file([(0, 300, True)]))
    with pytest.raises(ValueError, match="lists no kicks"):  # a walk report is not a push file
        compare_push_files(_push_file([]), _file([0]))
    with pytest.raises(ValueError, match="different episodes"):
        compare_push_files(_push_file([], episodes=4), _push_file([], episodes=8))
    with pytest.raises(ValueError, match="different fall_window_s"):
        compare_push_files(_push_file([]), _push_file([], fall_window_s=1.0))
    no_steps = _push_file([])
    no_steps["kick_columns"] = [c for c in KICK_COLUMNS if c != "control_step"]
    with pytest.raises(ValueError, match=r"without \['control_step'\]"):
        compare_push_files(_push_file([]), no_steps)
    standing = _push_file([])
    standing["scenarios"]["stand"] = standing["scenarios"].pop("forward_0.3")
    with pytest.raises(ValueError, match="different scenarios"):
        compare_push_files(_push_file([]), standing)


def _fall_cause_file(fallen, stand_fallen=(), episodes=8, seconds=10.0):
    def scenario(f):
        return {"all": {"episodes": episodes, "fall_share": len(f) / episodes},
                "episodes_fallen": list(f)}
    return {"episodes": episodes, "seconds": seconds, "pushes": "off",
            "scenarios": {"forward_0.3": scenario(fallen), "stand": scenario(stand_fallen)}}


def test_compare_fall_cause_files_pairs_each_scenario():
    out = compare_fall_cause_files(_fall_cause_file([0, 3, 5, 6]), _fall_cause_file([3], [1]))
    assert out["forward_0.3"] == {"falls_a": 0.5, "falls_b": 0.125, "both": 1, "only_a": 3,
                                  "only_b": 0, "p_value": 0.25}
    assert out["stand"]["only_b"] == 1 and out["stand"]["p_value"] == 1.0


def test_compare_fall_cause_files_refuses_what_cannot_be_paired():
    with pytest.raises(ValueError, match="different episodes"):
        compare_fall_cause_files(_fall_cause_file([0]), _fall_cause_file([0], episodes=16))
    with pytest.raises(ValueError, match="different seconds"):
        compare_fall_cause_files(_fall_cause_file([0]), _fall_cause_file([0], seconds=20.0))
    old = _fall_cause_file([0])
    del old["scenarios"]["stand"]["episodes_fallen"]  # a file from before episodes were listed
    with pytest.raises(ValueError, match="stand: a fall-cause file without episodes_fallen"):
        compare_fall_cause_files(_fall_cause_file([0]), old)
    fewer = _fall_cause_file([0])
    del fewer["scenarios"]["stand"]
    with pytest.raises(ValueError, match=r"different scenarios: only in a \['stand'\]"):
        compare_fall_cause_files(_fall_cause_file([0]), fewer)


def test_compare_files_dispatches_on_the_kind_and_refuses_mixed_kinds():
    assert [file_kind(f) for f in (_file([0]), _push_file([]), _fall_cause_file([]))] == [
        "walk report", "push file", "fall-cause file"]
    assert compare_files(_file([0, 1]), _file([1]))["kind"] == "walk report"
    assert compare_files(_push_file([(0, 3, True)]), _push_file([(0, 3, False)]))[
        "forward_0.3"]["only_a"] == 1
    assert compare_files(_fall_cause_file([2]), _fall_cause_file([]))["forward_0.3"]["only_a"] == 1
    assert "evaluated_under" not in compare_files(_file([0]), _file([0]))
    under = {**_file([0]), "evaluation_env_overrides": [["latency", {"action_steps": [0, 1]}]]}
    assert compare_files(_file([0]), under)["evaluated_under"] == {
        "a": [], "b": [["latency", {"action_steps": [0, 1]}]]}
    with pytest.raises(ValueError, match="a walk report and a push file cannot be paired"):
        compare_files(_file([0]), _push_file([]))
    with pytest.raises(ValueError, match="not a file of benchmarks/evaluate_walk.py"):
        compare_files({"scenarios": {}}, _file([0]))
