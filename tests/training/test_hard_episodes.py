"""Pooling runs' walk reports episode by episode, and what each episode was given."""

import numpy as np
import pytest

from mjxwalk.training.evaluate import REPORT_KEY
from mjxwalk.training.hard_episodes import (PUSHED_FORWARD_DEG, biggest_kicks, episode_draws,
                                            falls_per_episode, relate)
from mjxwalk.training.kicks import KICK_COLUMNS


def _report(fallen, episodes=8, scenario="forward_0.3"):
    return {"episodes_per_scenario": episodes,
            REPORT_KEY: {scenario: {"episodes_fallen": fallen}}}


def test_falls_per_episode_adds_up_the_runs():
    reports = {"a": _report([0, 3]), "b": _report([3, 7]), "c": _report([])}
    assert falls_per_episode(reports, "forward_0.3").tolist() == [1, 0, 0, 2, 0, 0, 0, 1]


def test_reports_that_cannot_be_pooled_are_named():
    with pytest.raises(ValueError, match="different episode counts.*'b': 16"):
        falls_per_episode({"a": _report([1]), "b": _report([1], episodes=16)}, "forward_0.3")
    with pytest.raises(ValueError, match="old.json has no list of fallen episodes for 'stand'"):
        falls_per_episode({"new.json": _report([1], scenario="stand"), "old.json": _report([1])},
                          "stand")
    old = {"episodes_per_scenario": 8, REPORT_KEY: {"forward_0.3": {"episodes_with_fall": 0.1}}}
    with pytest.raises(ValueError, match="old.json has no list"):
        falls_per_episode({"old.json": old}, "forward_0.3")
    delays = {**_report([1]), "evaluation_env_overrides": [["latency", {"action_steps": [1, 1]}]]}
    with pytest.raises(ValueError, match="delays.json evaluated under changed env fields"):
        falls_per_episode({"a.json": _report([1]), "delays.json": delays}, "forward_0.3")
    with pytest.raises(ValueError, match="delays_pushes.json evaluated under changed env fields"):
        biggest_kicks({"delays_pushes.json": {"evaluation_env_overrides": [["latency", {}]]}},
                      "forward_0.3", 8)


def test_relate_finds_the_quantity_that_decides_the_falls():
    """Falls that follow one quantity exactly rank it first with rho 1; a quantity that is
    unrelated gets a small rho; one that never varied is left out."""
    rng = np.random.default_rng(0)
    delay = rng.uniform(0, 1.75, 200)
    falls = (delay > 1.2).astype(int) * 3  # every one of 3 runs fell on those episodes
    out = relate({"noise": rng.uniform(size=200), "delay": delay, "fixed": np.ones(200)}, falls, 3)
    assert list(out) == ["delay", "noise"]
    assert out["delay"]["spearman_rho"] > 0.8 and out["delay"]["p_value"] < 1e-10
    assert out["delay"]["fall_share_lowest_quarter"] == 0.0
    assert out["delay"]["fall_share_highest_quarter"] == 1.0
    assert abs(out["noise"]["spearman_rho"]) < 0.2  # 200 draws: |rho| > 0.2 has p < 0.005


def _push_file(rows, scenario="forward_0.3"):
    kicks = [[dict(zip(("episode", "control_step", "size_m_s", "angle_deg"), r)).get(c, 0)
              for c in KICK_COLUMNS] for r in rows]
    return {"kick_columns": list(KICK_COLUMNS), "scenarios": {scenario: {"kicks": kicks}}}


def test_biggest_kicks_average_what_the_files_measured():
    """One kick seen by two files takes the mean of their sizes and the median angle; a
    kick only one file saw (the other had fallen) still counts."""
    a = _push_file([(0, 100, 0.30, 10.0), (1, 50, 0.20, 170.0)])
    b = _push_file([(0, 100, 0.40, 30.0), (0, 400, 0.35, 90.0)])
    out = biggest_kicks({"a": a, "b": b}, "forward_0.3", 3)
    assert out["biggest_kick_m_s"].tolist() == pytest.approx([0.35, 0.20, 0.0])
    assert out["biggest_forward_shove_m_s"].tolist() == pytest.approx([0.35, 0.0, 0.0])
    # a kick whose median angle is past the forward bin is not a shove from behind
    c = _push_file([(2, 10, 0.5, PUSHED_FORWARD_DEG + 1)])
    assert biggest_kicks({"c": c}, "forward_0.3", 3)["biggest_forward_shove_m_s"][2] == 0.0


def test_episode_draws_are_what_the_reports_episodes_meet():
    """The draws are those the walk report's rollout meets, in another scenario too (what
    pooling across scenarios and runs rests on), and each lies in its configured range."""
    import jax
    import jax.numpy as jnp

    from mjxwalk.config import WalkConfig
    from mjxwalk.training import evaluate
    from mjxwalk.training.config import smoke

    config, n = smoke(), 8
    draws = episode_draws(config, "forward_0.3", n)

    def still(obs, key):
        return jnp.zeros(obs["state"].shape[:-1] + (env.action_size,)), {}

    def record(s):
        p = s.info["walk"].params
        return p.action_delay, p.action_delay_substeps, p.imu_delay, p.servo.no_load_speed

    env = evaluate.scenario_env(config, "stand")
    _, (recorded, _) = evaluate.scenario_rollout(config, still, "stand", n, env.dt, record)
    delay, substeps, imu_delay, speed = jax.device_get(recorded)
    np.testing.assert_allclose(draws["action_delay_periods"], delay[0] + substeps[0] / env.n_substeps)
    np.testing.assert_array_equal(draws["imu_delay_steps"], imu_delay[0])
    np.testing.assert_allclose(draws["no_load_speed_min_rad_s"], speed[0].min(axis=1), rtol=1e-6)

    walk = WalkConfig()
    lo, hi = walk.randomization.floor_friction
    assert np.all((draws["floor_friction"] >= lo) & (draws["floor_friction"] <= hi))
    assert np.ptp(draws["floor_friction"]) > 0  # really drawn per episode
    periods = draws["action_delay_periods"]
    assert np.all((periods >= walk.latency.action_steps[0]) & (periods < walk.latency.action_steps[1] + 1))
    assert np.all(np.radians(draws["gravity_tilt_deg"]) <= walk.randomization.gravity_tilt[1] + 1e-6)
