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
