"""Symmetry augmentation of PPO data: the mirrored half, its behaviour log-probabilities,
and the refusal of an asymmetric robot. A training run that learns from twice the data is
test_run.py's smoke run (the smoke preset augments, as the cpu and gpu presets do)."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from brax.training import distribution, types

from mjxwalk.errors import SpecError
from mjxwalk.training import augment
from mjxwalk.training.config import smoke
from mjxwalk.training.run import train


def _transitions(env, shape=(6, 5), seed=0):
    """Random transitions with every field PPO's loss reads."""
    keys = iter(jax.random.split(jax.random.PRNGKey(seed), 8))
    nu = env.action_size
    obs = {k: jax.random.normal(next(keys), shape + s) for k, s in env.observation_size.items()}
    nxt = {k: jax.random.normal(next(keys), shape + s) for k, s in env.observation_size.items()}
    params = jax.random.normal(next(keys), shape + (2 * nu,))
    dist = distribution.NormalTanhDistribution(event_size=nu)
    raw = dist.sample_no_postprocessing(params, next(keys))
    extras = {"policy_extras": {"raw_action": raw, "log_prob": dist.log_prob(params, raw),
                                "distribution_params": params},
              "state_extras": {"truncation": jnp.zeros(shape)}}
    return types.Transition(observation=obs, action=jnp.tanh(raw),
                            reward=jax.random.normal(next(keys), shape),
                            discount=jnp.ones(shape), next_observation=nxt, extras=extras), dist


def test_augment_appends_the_mirror_image(walk_env):
    m = walk_env.mirror
    data, _ = _transitions(walk_env)
    out = augment.augment(data, m)
    n = data.reward.shape[0]
    assert out.reward.shape == (2 * n,) + data.reward.shape[1:]
    # the first half is the data itself
    for a, b in zip(jax.tree.leaves(data), jax.tree.leaves(jax.tree.map(lambda x: x[:n], out))):
        np.testing.assert_array_equal(a, b)
    second = jax.tree.map(lambda x: x[n:], out)
    np.testing.assert_array_equal(second.observation["state"], m.state.apply(data.observation["state"]))
    np.testing.assert_array_equal(second.next_observation["privileged_state"],
                                  m.privileged_state.apply(data.next_observation["privileged_state"]))
    np.testing.assert_array_equal(second.action, m.action.apply(data.action))
    # rewards, discounts and truncation do not change under the mirror
    np.testing.assert_array_equal(second.reward, data.reward)
    np.testing.assert_array_equal(second.extras["state_extras"]["truncation"],
                                  data.extras["state_extras"]["truncation"])
    np.testing.assert_array_equal(second.extras["policy_extras"]["log_prob"],
                                  data.extras["policy_extras"]["log_prob"])


def test_mirrored_behaviour_policy_gives_the_mirrored_action_the_same_probability(walk_env):
    """What keeping the behaviour log-probability rests on: under the mirrored
    distribution parameters, the mirrored raw action is exactly as likely as the original."""
    data, dist = _transitions(walk_env, seed=1)
    mirrored = augment.mirror_transitions(data, walk_env.mirror).extras["policy_extras"]
    np.testing.assert_allclose(dist.log_prob(mirrored["distribution_params"], mirrored["raw_action"]),
                               data.extras["policy_extras"]["log_prob"], rtol=1e-5, atol=1e-5)
    # and it is a real constraint: a sign-flipped scale is a different distribution
    loc, scale = jnp.split(mirrored["distribution_params"], 2, axis=-1)
    wrong = jnp.concatenate([loc, walk_env.mirror.action.apply(scale)], axis=-1)
    assert not np.allclose(dist.log_prob(wrong, mirrored["raw_action"]),
                           data.extras["policy_extras"]["log_prob"], atol=1e-3)


def test_asymmetric_robot_is_refused_before_anything_is_written(tmp_path, kidbot_copy):
    xml = kidbot_copy / "kidbot.xml"
    xml.write_text(xml.read_text().replace('name="right_knee" class="pitch" range="0 2.2"',
                                           'name="right_knee" class="pitch" range="0 2.0"'))
    config = dataclasses.replace(smoke(), robot=str(kidbot_copy / "kidbot.toml"))
    assert config.symmetry_augmentation
    out = tmp_path / "run"
    with pytest.raises(SpecError, match=r"range.*--no-symmetry-augmentation"):
        train(config, out=out, show_progress=False)
    assert not out.exists()
