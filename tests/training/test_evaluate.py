"""The walk report: its scenarios' envs, and its acceptance check on reports written by hand."""

import dataclasses
import math

import pytest

from mjxwalk.training.config import smoke
from mjxwalk.training.evaluate import (ACCEPTANCE_PUSHES, KICK_COLUMNS, REPORT_KEY,
                                       check_targets, compare_push_files, compare_walk_files,
                                       paired_fall_test, scenario_env, wilson_interval)


@pytest.mark.parametrize("trained_pushes", [{"enabled": False},
                                            {"interval": [2.0, 5.0], "velocity": [0.1, 0.8]}])
def test_scenarios_push_alike_whatever_the_run_trained_with(trained_pushes):
    config = dataclasses.replace(smoke(), env_overrides=(("pushes", trained_pushes),
                                                          ("history_length", 2)))
    env = scenario_env(config, "forward_0.3")
    pushes = env.config.pushes
    assert (pushes.enabled, pushes.interval, pushes.velocity) == (
        ACCEPTANCE_PUSHES["enabled"], ACCEPTANCE_PUSHES["interval"], ACCEPTANCE_PUSHES["velocity"])
    # the rest of the run's env and the fixed command stay
    assert env.config.history_length == 2
    assert env.config.commands.vx_range == (0.3, 0.3)
    assert env.config.commands.zero_probability == 0.0


def _report(fwd_vx=0.28, turn_yaw=0.45, stand_vx=0.01, stand_yaw=0.02, falls=0.0):
    def row(cvx, cyaw, vx, yaw):
        return {"command_vx": cvx, "command_yaw_rate": cyaw, "mean_vx": vx,
                "mean_yaw_rate": yaw, "episodes_with_fall": falls, "falls_per_minute": 0.0}
    return {"forward_0.3": row(0.3, 0.0, fwd_vx, 0.0), "turn_0.5": row(0.0, 0.5, 0.0, turn_yaw),
            "stand": row(0.0, 0.0, stand_vx, stand_yaw)}


def test_a_walking_policy_meets_every_target():
    assert check_targets(_report()) == {"forward_speed": True, "turn_rate": True,
                                        "stand_still": True, "falls": True, "all": True}


def test_each_target_fails_on_its_own():
    # 0.3 m/s commanded: 0.22 is 27% short (limit 25%); 0.5 rad/s: 0.34 is 32% short (30%)
    assert not check_targets(_report(fwd_vx=0.22))["forward_speed"]
    assert check_targets(_report(fwd_vx=0.23))["forward_speed"]
    assert not check_targets(_report(fwd_vx=0.38))["forward_speed"]  # too fast counts too
    assert not check_targets(_report(turn_yaw=0.34))["turn_rate"]
    assert not check_targets(_report(stand_vx=0.06))["stand_still"]
    assert not check_targets(_report(stand_yaw=-0.15))["stand_still"]
    r = check_targets(_report(falls=0.05))
    assert not r["falls"] and not r["all"]


def test_wilson_interval_closed_forms_at_the_edges():
    # no falls in 64: [0, z²/(n+z²)] (5.7%: 64 clean episodes do not prove "< 5%")
    lo, hi = wilson_interval(0, 64)
    assert lo == 0.0 and hi == pytest.approx(1.96**2 / (64 + 1.96**2))
    lo, hi = wilson_interval(64, 64)
    assert hi == 1.0 and lo == pytest.approx(64 / (64 + 1.96**2))


def test_wilson_interval_is_symmetric_and_holds_the_share():
    for k in range(65):
        lo, hi = wilson_interval(k, 64)
        assert 0.0 <= lo <= k / 64 <= hi <= 1.0
        mlo, mhi = wilson_interval(64 - k, 64)
        assert (lo, hi) == pytest.approx((1 - mhi, 1 - mlo))


@pytest.mark.parametrize("p", [0.05, 0.2, 0.4])
def test_wilson_interval_covers_the_true_share_95_percent_of_the_time(p):
    # exact coverage over the binomial law of 64 episodes; Wilson's wobbles around the
    # nominal 95% by a point or two at this n; a normal-approximation interval covers
    # only 83% at p = 0.05, so this test fails for it
    n = 64
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    intervals = [wilson_interval(k, n) for k in range(n + 1)]
    coverage = sum(w for w, (lo, hi) in zip(pmf, intervals) if lo <= p <= hi)
    assert 0.92 <= coverage <= 0.98


def test_wilson_interval_rejects_impossible_counts():
    with pytest.raises(ValueError, match="trials"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(65, 64)


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


def _push_file(kicks, episodes=4, fall_window_s=2.0):
    """kicks: (episode, control step, fell) per kick of the forward scenario."""
    return {"episodes": episodes, "seconds": 20.0, "fall_window_s": fall_window_s,
            "kick_columns": list(KICK_COLUMNS),
            "scenarios": {"forward_0.3": {"kicks": [[e, t, 0.3, 90.0, f] for e, t, f in kicks]}}}


def test_compare_push_files_pairs_kicks_by_episode_and_step():
    a = _push_file([(0, 300, True), (1, 250, False), (1, 700, True), (2, 400, False)])
    # b survived episode 1's second kick, so met a third that a never did; a fell in
    # episode 3 before its first kick
    b = _push_file([(0, 300, True), (1, 250, False), (1, 700, False), (1, 900, True),
                    (2, 400, True), (3, 500, False)])
    out = compare_push_files(a, b)["forward_0.3"]
    assert out == {"kicks_paired": 4, "kicks_unpaired": 2, "both": 1, "only_a": 1, "only_b": 1,
                   "p_value": 1.0}


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
    reordered = _push_file([])
    reordered["kick_columns"] = list(reversed(KICK_COLUMNS))
    with pytest.raises(ValueError, match="kick columns"):
        compare_push_files(_push_file([]), reordered)
