"""The shipped policies: found by name, loaded with the contract today's code gives, and
the walk policy walks."""

import dataclasses

import numpy as np
import pytest

import mjxwalk
from mjxwalk.errors import MjxwalkError
from mjxwalk.policies import RUN_FILES

WALK = "kidbot_walk"


def test_the_walk_policy_is_shipped_with_what_load_run_needs():
    assert WALK in mjxwalk.list_policies()
    folder = mjxwalk.policy_path(WALK)
    for name in (*RUN_FILES, "trained.json"):
        assert (folder / name).is_file(), name


def test_an_unknown_policy_name_is_refused_with_the_shipped_ones():
    with pytest.raises(MjxwalkError, match=rf"no shipped policy named 'kidbot_run'; "
                                           rf"mjxwalk ships .*{WALK}"):
        mjxwalk.policy_path("kidbot_run")


def test_the_walk_policy_walks_the_nominal_robot_near_the_commanded_speed():
    """The policy file, loaded as the benchmark scripts load it, on today's env: a contract
    that drifted from the one it trained with fails here (load_run checks it), and so does
    an env change that breaks its gait, before the README's figures silently stop holding.
    On the nominal robot (no randomization, delay, noise or kicks), 10 s at 0.3 m/s: no
    fall, and a mean speed over the last 5 s between 0.2 and 0.45 m/s. Without servo delay
    it strides further than under randomization (0.26 m/s here, 0.23 in the walk report),
    so the bounds are loose: they catch a policy that stands, shuffles or runs, and leave
    tracking to the walk report."""
    from mjxwalk.config import WalkConfig, without_randomization
    from mjxwalk.training import evaluate
    from mjxwalk.training.run import load_run

    nominal = without_randomization(WalkConfig())
    overrides = tuple((f, dataclasses.asdict(getattr(nominal, f)))
                      for f in ("randomization", "sensors", "servo", "latency", "noise",
                                "curriculum"))
    config, _, make_policy, step, state = load_run(mjxwalk.policy_path(WALK), overrides)
    assert step > 10_000_000
    env, ((forward, _, falls), alive) = evaluate.command_rollout(
        config, evaluate.policy_fn(make_policy, state), evaluate.SCENARIOS["forward_0.3"],
        num_envs=4, seconds=10.0, record=evaluate._forward_and_yaw, pushes={"enabled": False})
    assert float(np.sum(np.asarray(falls) * np.asarray(alive))) == 0
    last = int(round(5.0 / env.dt))
    speed = float(np.mean(np.asarray(forward)[-last:]))
    assert 0.2 <= speed <= 0.45, speed
