"""Learning really happens: a short run improves the episode return clearly."""

import pytest

from mjxwalk.training import evaluate, ppo
from mjxwalk.training.config import TrainConfig
from mjxwalk.training.run import build_env, train

import jax

# A small task: forward commands up to 0.3 m/s, no model randomization or pushes, 4 s
# episodes. 300k steps take about 4.5 minutes on 2 CPU cores, 70 s of it compiling.
CONFIG = TrainConfig(
    num_envs=128, num_timesteps=300_000, episode_length=200, unroll_length=20, batch_size=64,
    num_minibatches=4, num_updates_per_batch=4, policy_hidden=(64, 64), value_hidden=(128, 128),
    learning_rate=1e-3, checkpoint_every_s=1e9,
    # no turning is asked here: the yaw term keeps the weight (1.0) the thresholds below were
    # measured with; at the walk default (2.0) it pays a standing robot so much for not
    # turning that 300k steps raised the return but did not stop the falls; the action-rate
    # weight too stays the one they were measured with
    env_overrides=(("rewards", {"tracking_ang_vel": 1.0, "action_rate": -0.01}),
                   ("randomization", {"enabled": False}), ("pushes", {"enabled": False}),
                   ("commands", {"vx_range": (0.0, 0.3), "vy_range": (0.0, 0.0),
                                 "yaw_rate_range": (0.0, 0.0)})))


def test_episode_return_rises_well_above_the_untrained_policy(tmp_path):
    result = train(CONFIG, out=tmp_path / "learn", show_progress=False)
    env = build_env(CONFIG)
    networks = ppo.make_networks(CONFIG, env)
    untrained = ppo.init_state(CONFIG, networks, env.observation_size,
                               jax.random.PRNGKey(CONFIG.seed))
    # PPO improves the stochastic policy it samples from: compare that policy's returns.
    before = evaluate.evaluate(env, result.make_policy, untrained, deterministic=False)
    after = evaluate.evaluate(env, result.make_policy, result.state, deterministic=False)
    # Measured 71 -> 175 (x2.5) when this was written, and 129 -> 204 (x1.6; fall rate 1.0
    # -> 0.98) on 2026-12-06, after the walk env's defaults had changed: one CPU is
    # deterministic, so this does not flake there, but the margin over x1.5 is now thin.
    assert before["fall_rate"] > 0.9
    assert after["episode_return"] > 1.5 * before["episode_return"], (before, after)
    assert after["fall_rate"] < before["fall_rate"]
