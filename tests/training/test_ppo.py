"""The PPO iteration, traced (not compiled): what it returns is what it takes."""

import jax

from mjxwalk.training import ppo
from mjxwalk.training.config import smoke
from mjxwalk.training.run import build_env
from mjxwalk.wrappers import BatchedEnv


def _types(tree):
    return jax.tree.map(lambda x: (x.shape, x.dtype, x.weak_type), tree)


def test_iteration_returns_the_types_it_takes():
    """The training loop feeds each iteration's output into the next: a leaf that comes back
    with another shape, dtype or weak type makes the second iteration compile the whole
    step again (a weak-typed `truncation` once did, doubling every run's compile time)."""
    config = smoke()
    env = build_env(config)
    batched = BatchedEnv(env, config.num_envs, episode_length=config.episode_length)
    networks = ppo.make_networks(config, env.observation_size, env.action_size)
    state = jax.eval_shape(lambda k: ppo.init_state(config, networks, env.observation_size, k),
                           jax.random.PRNGKey(0))
    env_state = jax.eval_shape(batched.reset, jax.random.split(jax.random.PRNGKey(1),
                                                               config.num_envs))
    iteration = ppo.make_iteration(config, batched, networks, config.num_envs, axis=None)
    new_state, new_env_state, _ = jax.eval_shape(iteration, state, env_state)
    assert _types(new_state) == _types(state)
    assert _types(new_env_state) == _types(env_state)
