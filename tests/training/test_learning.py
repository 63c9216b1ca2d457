"""Learning really happens: a short run improves the episode return clearly."""

import pytest

from mjxwalk.training import evaluate, ppo
from mjxwalk.training.config import TrainConfig
from mjxwalk.training.run import build_env, train

import jax

# A small task: forward commands up to 0.3 m/s, no model randomization or pushes, 4 s
# episodes. 600k steps with 8 passes per batch take 3-4 minutes on 2 CPU cores, compiling
# included. At 300k steps and 4 passes (this test until 2026-12-07) the sampled policy's
# return rose x1.34-1.73 over seeds, entropy costs and machines, around a x1.5 threshold
# (benchmarks/results/learning_test_margin.json, made by benchmarks/learning_test_margin.py).
CONFIG = TrainConfig(
    num_envs=128, num_timesteps=600_000, episode_length=200, unroll_length=20, batch_size=64,
    num_minibatches=4, num_updates_per_batch=8, policy_hidden=(64, 64), value_hidden=(128, 128),
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
    # Untrained, its action noise (a deviation of 0.69 before the tanh, about 0.2 rad per
    # joint) topples every robot within the 4 s. Measured (2026-12-07): return x3.30 (130.8
    # -> 431.0, 53% of the episodes with a fall) with the suite's XLA flags, x2.95 and x3.39
    # (seeds 0 and 1, 70% and 53%) without them. x2 is half the way from x1 to the lowest of
    # those, and a policy that has learned nothing keeps every one of 64 episodes falling.
    assert before["fall_rate"] > 0.9
    assert after["episode_return"] > 2.0 * before["episode_return"], (before, after)
    assert after["fall_rate"] < 0.9, (before, after)
