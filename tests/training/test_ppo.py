"""The PPO iteration, traced (not compiled): what it returns is what it takes."""

import dataclasses

import jax
import jax.numpy as jnp
import pytest

from mjxwalk.training import ppo
from mjxwalk.training.config import smoke
from mjxwalk.training.run import build_env
from mjxwalk.wrappers import BatchedEnv


def _types(tree):
    return jax.tree.map(lambda x: (x.shape, x.dtype, x.weak_type), tree)


@pytest.mark.parametrize("estimator_targets", [(), ("lin_vel", "feet_contact")])
def test_iteration_returns_the_types_it_takes(estimator_targets):
    """The training loop feeds each iteration's output into the next: a leaf that comes back
    with another shape, dtype or weak type makes the second iteration compile the whole
    step again (a weak-typed `truncation` once did, doubling every run's compile time)."""
    config = dataclasses.replace(smoke(), estimator_targets=estimator_targets)
    env = build_env(config)
    batched = BatchedEnv(env, config.num_envs, episode_length=config.episode_length)
    networks = ppo.make_networks(config, env)
    state = jax.eval_shape(lambda k: ppo.init_state(config, networks, env.observation_size, k),
                           jax.random.PRNGKey(0))
    env_state = jax.eval_shape(batched.reset, jax.random.split(jax.random.PRNGKey(1),
                                                               config.num_envs))
    iteration = ppo.make_iteration(config, batched, networks, config.num_envs, axis=None)
    new_state, new_env_state, _ = jax.eval_shape(iteration, state, env_state)
    assert _types(new_state) == _types(state)
    assert _types(new_env_state) == _types(env_state)


def test_discount_switches_at_the_step_count():
    """Before the switch the iteration uses `discounting`, from it on `discounting_final`;
    without a final discount it stays a Python constant (the step compiles as before)."""
    config = dataclasses.replace(smoke(), discounting=0.97, discounting_final=0.99,
                                 discounting_switch_steps=2048)
    at = jax.jit(lambda steps: ppo.discounting_at(config, steps))
    assert [float(at(jnp.int32(s))) for s in (0, 2047, 2048, 4096)] == \
        [jnp.float32(0.97), jnp.float32(0.97), jnp.float32(0.99), jnp.float32(0.99)]
    assert ppo.discounting_at(smoke(), jnp.int32(10**6)) == smoke().discounting


def test_learning_rate_decays_linearly_to_the_last_iteration():
    """`learning_rate` until the decay starts, then linear by the env steps at each
    iteration's end, so the iteration that ends at `num_timesteps` trains at exactly
    `learning_rate_final`; without one it stays a Python constant (the step compiles as
    before), and a decay that starts past the run's end keeps the rate."""
    config = dataclasses.replace(smoke(), learning_rate=4e-4, learning_rate_final=0.0,
                                 learning_rate_decay_start_steps=1000, num_timesteps=3000)
    at = jax.jit(lambda steps: ppo.learning_rate_at(config, steps))
    assert [float(at(jnp.int32(s))) for s in (0, 1000, 2000, 3000, 5000)] == \
        pytest.approx([4e-4, 4e-4, 2e-4, 0.0, 0.0])
    assert ppo.learning_rate_at(smoke(), jnp.int32(10**6)) == smoke().learning_rate
    late = dataclasses.replace(config, learning_rate_decay_start_steps=3000)
    assert ppo.learning_rate_at(late, jnp.int32(10**6)) == late.learning_rate


def test_an_iteration_at_learning_rate_zero_leaves_the_weights():
    """The schedule reaches the optimizer: a one-iteration run decayed to 0 runs all its
    minibatch updates (Adam counts them and its moments move) without moving a weight,
    while the normalizer still learns from the collected steps."""
    config = dataclasses.replace(smoke(), learning_rate_final=0.0,
                                 num_timesteps=smoke().env_steps_per_iteration)
    env = build_env(config)
    batched = BatchedEnv(env, config.num_envs, episode_length=config.episode_length)
    networks = ppo.make_networks(config, env)
    state = ppo.init_state(config, networks, env.observation_size, jax.random.PRNGKey(0))
    env_state = batched.reset(jax.random.split(jax.random.PRNGKey(1), config.num_envs))
    iteration = jax.jit(ppo.make_iteration(config, batched, networks, config.num_envs, axis=None))
    new_state, _, metrics = iteration(state, env_state)
    assert float(metrics["train/learning_rate"]) == 0.0
    for old, new in zip(jax.tree.leaves(state.params), jax.tree.leaves(new_state.params)):
        assert jnp.array_equal(old, new)
    adam = new_state.optimizer_state[1][0]
    assert int(adam.count) == config.num_minibatches * config.num_updates_per_batch
    assert any(float(jnp.abs(m).max()) > 0 for m in jax.tree.leaves(adam.mu))
    assert int(new_state.normalizer_params.count) > int(state.normalizer_params.count)
