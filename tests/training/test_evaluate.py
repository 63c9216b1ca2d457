"""The walk report: its scenarios' envs, and its acceptance check on reports written by hand."""

import dataclasses
import math
from collections import namedtuple
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mjxwalk.config import Pushes
from mjxwalk.training.config import smoke
from mjxwalk.training.evaluate import (ACCEPTANCE_PUSHES, check_targets, estimate_errors,
                                       first_episode, policy_fn, saturation, scenario_env,
                                       steps_before, steps_since, wilson_interval)


@pytest.mark.parametrize("trained_pushes", [{"enabled": False},
                                            {"interval": [2.0, 5.0], "velocity": [0.1, 0.8]},
                                            {"angular_velocity": 1.0}])
def test_scenarios_push_alike_whatever_the_run_trained_with(trained_pushes):
    config = dataclasses.replace(smoke(), env_overrides=(("pushes", trained_pushes),
                                                          ("history_length", 2)))
    env = scenario_env(config, "forward_0.3")
    # every field, the ones the report's kicks leave out too: no turning kicks
    assert env.config.pushes == Pushes(**ACCEPTANCE_PUSHES)
    assert env.config.pushes.angular_velocity == 0.0
    # the rest of the run's env and the fixed command stay
    assert env.config.history_length == 2
    assert env.config.commands.vx_range == (0.3, 0.3)
    assert env.config.commands.zero_probability == 0.0


def test_scenarios_keep_every_override_of_a_field_the_run_set_twice():
    """A resumed run with a second --set of one field trains under both; its evaluation must
    too (and an evaluation's own --set comes after them)."""
    config = dataclasses.replace(smoke(), env_overrides=(
        ("rewards", {"feet_phase": 0.5}), ("rewards", {"action_rate": -0.06}),
        ("latency", {"action_steps": [1, 1]}), ("latency", {"action_steps": [0, 1]})))
    env = scenario_env(config, "stand")
    assert env.config.rewards.feet_phase == 0.5 and env.config.rewards.action_rate == -0.06
    assert tuple(env.config.latency.action_steps) == (0, 1)


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


def test_walk_report_rolls_every_scenario_out_under_the_pushes_it_is_given(monkeypatch):
    import jax.numpy as jnp

    from mjxwalk.training import evaluate

    seen = []

    def rollout(config, policy, name, num_envs, seconds, record, pushes):
        seen.append((name, pushes))
        ones = jnp.ones((3, num_envs))
        return None, ((0.3 * ones, 0.0 * ones, 0.0 * ones), ones)

    monkeypatch.setattr(evaluate, "scenario_rollout", rollout)
    monkeypatch.setattr(evaluate, "policy_fn", lambda *a, **k: None)
    report = evaluate.walk_report(None, None, None, num_envs=4, pushes={"enabled": False})
    assert seen == [(name, {"enabled": False}) for name in evaluate.SCENARIOS]
    assert report["forward_0.3"]["mean_vx"] == pytest.approx(0.3)
    evaluate.walk_report(None, None, None, num_envs=4)
    assert seen[-1] == ("stand", ACCEPTANCE_PUSHES)


def test_steps_since_counts_from_each_event():
    events = np.zeros((6, 2), bool)
    events[1, 0] = events[4, 0] = True
    since = steps_since(events)
    assert since[1:, 0].tolist() == [0, 1, 2, 0, 1] and since[0, 0] > 6
    assert (since[:, 1] > 6).all()  # no event: past every step


def test_estimate_errors_score_a_perfect_and_a_mean_guess():
    rng = np.random.default_rng(0)
    truth = rng.normal(0.0, [0.1, 0.3], size=(50, 8, 2))
    mask = np.ones((50, 8), bool)
    mask[:, 0] = False  # a dead env's steps must not count
    perfect = estimate_errors(truth.copy(), truth, mask)
    assert perfect["samples"] == 50 * 7 and perfect["rms_error"] == [0.0, 0.0]
    assert perfect["variance_explained"] == [1.0, 1.0]
    mean_guess = np.broadcast_to(truth[mask].mean(axis=0), truth.shape)
    scored = estimate_errors(mean_guess, truth, mask)
    assert scored["variance_explained"] == [0.0, 0.0]
    np.testing.assert_allclose(scored["rms_error"], scored["truth_std"], atol=1e-4)
    assert estimate_errors(truth, truth, np.zeros((50, 8), bool)) == {"samples": 0}


def test_steps_before_marks_the_steps_leading_to_each_event():
    events = np.zeros((8, 2), bool)
    events[3, 0] = events[7, 0] = events[1, 1] = True
    before = steps_before(events, 2)
    assert np.flatnonzero(before[:, 0]).tolist() == [1, 2, 5, 6]  # never the event itself
    assert np.flatnonzero(before[:, 1]).tolist() == [0]  # cut at the first step
    assert not steps_before(np.zeros((5, 1), bool), 3).any()


def test_saturation_counts_actions_at_the_end_of_their_range():
    actions = np.zeros((4, 2, 3))
    actions[0, 0] = [0.99, 0.0, 0.0]   # one joint at the limit
    actions[1, 0] = [0.0, -1.0, 0.96]  # two joints, one of them negative
    actions[2, 0] = [0.9, 0.9, 0.9]    # close, but inside
    masks = {"env0": np.array([[1, 0]] * 4, bool), "none": np.zeros((4, 2), bool)}
    out = saturation(actions, masks)
    assert out["env0"]["steps"] == 4 and out["env0"]["any_joint"] == 0.5
    assert out["env0"]["per_joint"] == [0.25, 0.25, 0.25]
    assert out["env0"]["mean_abs_action"] == pytest.approx([(0.99 + 0.9) / 4, 0.475, 0.465], abs=1e-3)
    assert out["none"] == {"steps": 0}


_DriftState = namedtuple("_DriftState", "obs done")


class _Drift:
    """A batched stand-in env: each of 3 envs holds a 2-vector that the action adds to."""

    batch_size = 3

    def reset(self, keys, model_rng=None):
        return _DriftState(jnp.ones((3, 2)), jnp.zeros(3))

    def step(self, s, action):
        return _DriftState(s.obs + action, jnp.zeros(3))


def _linear(params, deterministic):
    return lambda obs, key: (obs @ params[1]["w"], {})


def _state(scale):
    return SimpleNamespace(normalizer_params=0.0,
                           params=SimpleNamespace(policy={"w": scale * jnp.eye(2)}, value={}))


class _KeyEcho:
    """A batched stand-in env of 3 envs whose next observation is the action it was given."""

    batch_size = 3

    def reset(self, keys, model_rng=None):
        return _DriftState(keys, jnp.zeros(3))

    def step(self, s, action):
        return _DriftState(action, jnp.zeros(3))


def test_a_sampling_policys_keys_are_not_the_reset_keys():
    """Step t's sampling key once equalled env t's reset key, tying a stochastic
    evaluation's noise to the episodes' draws (kick times, servo and sensor draws)."""
    key = jax.random.PRNGKey(7)
    echo_key = lambda obs, k: (jnp.broadcast_to(k, obs.shape), {})  # noqa: E731
    actions = np.asarray(first_episode(_KeyEcho(), echo_key, key, 3, lambda s: s.obs[0])[0])
    reset_keys = {tuple(k) for k in np.asarray(jax.random.split(key, 3)).tolist()}
    action_keys = {tuple(k) for k in actions.tolist()}
    assert len(action_keys) == 3, "every step samples with a key of its own"
    assert not action_keys & reset_keys


def test_policies_of_one_network_share_one_rollout_program(monkeypatch):
    """A checkpoint's parameters go into the rollout as arguments, not as constants, so a
    second policy of the same networks reuses the compile (on the walk env one compile is
    about a minute here); closed-over parameters do make another program."""
    real_jit, programs = jax.jit, []

    def recording_jit(fn):
        jitted = real_jit(fn)

        def call(*args):
            programs.append(jitted.lower(*args).as_text())
            return jitted(*args)
        return call

    monkeypatch.setattr(jax, "jit", recording_jit)
    key, record = jax.random.PRNGKey(0), lambda s: s.obs[:, 0]
    outs = [first_episode(_Drift(), policy_fn(_linear, _state(k)), key, 4, record)[0]
            for k in (1.0, 2.0)]
    assert programs[0] == programs[1]
    assert not np.allclose(outs[0], outs[1])  # the parameters did act
    np.testing.assert_allclose(outs[1][:, 0], [3, 9, 27, 81])  # x <- x + 2x from 1
    for k in (1.0, 2.0):  # a closure over the same arrays: one program per policy
        first_episode(_Drift(), lambda obs, key, k=k: (obs @ (k * jnp.eye(2)), {}), key, 4, record)
    assert programs[2] != programs[3]
