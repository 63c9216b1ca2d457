"""The PPO iteration, traced (not compiled): what it returns is what it takes."""

import dataclasses

import jax
import jax.numpy as jnp
import pytest

from brax.envs.base import State

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
    new_state, new_env_state, _ = jax.eval_shape(iteration, state, env_state,
                                                 ppo.schedule(config))
    assert _types(new_state) == _types(state)
    assert _types(new_env_state) == _types(env_state)


def test_discount_switches_at_the_step_count():
    """Before the switch the iteration uses `discounting`, from it on `discounting_final`;
    without a final discount it stays `discounting`."""
    config = dataclasses.replace(smoke(), discounting=0.97, discounting_final=0.99,
                                 discounting_switch_steps=2048)
    at = jax.jit(lambda steps: ppo.discounting_at(ppo.schedule(config), steps))
    assert [float(at(jnp.int32(s))) for s in (0, 2047, 2048, 4096)] == \
        [jnp.float32(0.97), jnp.float32(0.97), jnp.float32(0.99), jnp.float32(0.99)]
    constant = ppo.schedule(smoke())
    assert ppo.discounting_at(constant, jnp.int32(10**6)) == jnp.float32(smoke().discounting)


def test_learning_rate_decays_linearly_to_the_last_iteration():
    """`learning_rate` until the decay starts, then linear by the env steps at each
    iteration's end, so the iteration that ends at `num_timesteps` trains at exactly
    `learning_rate_final`; without one, or with a decay that starts past the run's end, it
    stays `learning_rate`."""
    config = dataclasses.replace(smoke(), learning_rate=4e-4, learning_rate_final=0.0,
                                 learning_rate_decay_start_steps=1000, num_timesteps=3000)
    at = jax.jit(lambda steps: ppo.learning_rate_at(ppo.schedule(config), steps))
    assert [float(at(jnp.int32(s))) for s in (0, 1000, 2000, 3000, 5000)] == \
        pytest.approx([4e-4, 4e-4, 2e-4, 0.0, 0.0])
    for steps in (0, 10**6):  # exactly the constant rate, not a rounding of it
        rate = ppo.learning_rate_at(ppo.schedule(smoke()), jnp.int32(steps))
        assert rate == jnp.float32(smoke().learning_rate)
    late = dataclasses.replace(config, learning_rate_decay_start_steps=3000)
    assert ppo.learning_rate_at(ppo.schedule(late), jnp.int32(10**6)) == \
        jnp.float32(late.learning_rate)


class _PointEnv:
    """A batch of points on a line that the action pushes and the reward pulls to zero:
    the PPO step around it compiles in seconds, so its wiring is tested without physics."""

    observation_size = {"state": (2,), "privileged_state": (2,)}
    action_size = 1

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self.unwrapped = self

    def _state(self, x, reward, done):
        obs = {"state": x, "privileged_state": x}
        info = {"truncation": jnp.zeros(self.num_envs), "step_metrics": {"x": x[:, 0]}}
        return State(pipeline_state=None, obs=obs, reward=reward, done=done, metrics={},
                     info=info)

    def reset(self, keys):
        x = jax.vmap(lambda k: jax.random.uniform(k, (2,), minval=-1.0, maxval=1.0))(keys)
        return self._state(x, jnp.zeros(self.num_envs), jnp.zeros(self.num_envs))

    def step(self, state, action):
        x = state.obs["state"].at[:, 0].add(0.1 * action[:, 0])
        return self._state(x, -jnp.abs(x[:, 0]), jnp.zeros(self.num_envs))


def test_an_iteration_at_learning_rate_zero_leaves_the_weights():
    """The schedule reaches the optimizer: a one-iteration run decayed to 0 runs all its
    minibatch updates (Adam counts them and its moments move) without moving a weight,
    while the same iteration at the constant rate moves them."""
    base = dataclasses.replace(smoke(), symmetry_augmentation=False)
    decayed = dataclasses.replace(base, learning_rate_final=0.0,
                                  num_timesteps=base.env_steps_per_iteration)
    env = _PointEnv(base.num_envs)
    networks = ppo.make_networks(base, env)
    state = ppo.init_state(base, networks, env.observation_size, jax.random.PRNGKey(0))
    env_state = env.reset(jax.random.split(jax.random.PRNGKey(1), base.num_envs))

    def run(config):
        iteration = ppo.make_iteration(config, env, networks, config.num_envs, axis=None)
        return jax.jit(iteration)(state, env_state, ppo.schedule(config))

    still, _, metrics = run(decayed)
    moved, _, _ = run(base)
    assert float(metrics["train/learning_rate"]) == 0.0
    unchanged = [bool(jnp.array_equal(a, b)) for a, b in
                 zip(jax.tree.leaves(state.params), jax.tree.leaves(still.params))]
    assert all(unchanged)
    assert not any(bool(jnp.array_equal(a, b)) for a, b in
                   zip(jax.tree.leaves(state.params.policy), jax.tree.leaves(moved.params.policy)))
    adam = still.optimizer_state[1][0]
    assert int(adam.count) == base.num_minibatches * base.num_updates_per_batch
    assert any(float(jnp.abs(m).max()) > 0 for m in jax.tree.leaves(adam.mu))


def test_runs_that_differ_only_in_their_schedule_share_one_compiled_iteration():
    """The schedule is an argument of the step, not constants in it: a run with a discount
    switch and a learning-rate decay lowers to the same program as a constant one (and so
    loads it from the compilation cache), and a different network does not."""
    base = dataclasses.replace(smoke(), symmetry_augmentation=False)
    scheduled = dataclasses.replace(base, discounting_final=0.5, discounting_switch_steps=64,
                                    learning_rate_final=0.0, num_timesteps=10**6)
    env = _PointEnv(base.num_envs)

    def program(config):
        networks = ppo.make_networks(config, env)
        state = ppo.init_state(config, networks, env.observation_size, jax.random.PRNGKey(0))
        env_state = env.reset(jax.random.split(jax.random.PRNGKey(1), config.num_envs))
        iteration = ppo.make_iteration(config, env, networks, config.num_envs, axis=None)
        return jax.jit(iteration).lower(state, env_state, ppo.schedule(config)).as_text()

    assert program(scheduled) == program(base)
    assert program(dataclasses.replace(base, policy_hidden=(16,))) != program(base)


class _CountingEnv:
    """Each env's observation is (its index, steps taken): the collected layout is readable."""

    def step(self, state: State, action):
        obs = state.obs.at[:, 1].add(1.0)
        return state.replace(obs=obs, reward=obs[:, 1], info={"truncation": obs[:, 0] * 0})


def _counting_state(envs: int) -> State:
    obs = jnp.stack([jnp.arange(envs, dtype=jnp.float32), jnp.zeros(envs)], axis=1)
    zeros = jnp.zeros(envs)
    return State(pipeline_state=None, obs=obs, reward=zeros, done=zeros, metrics={},
                 info={"truncation": zeros})


def test_collected_rows_are_one_env_each_in_time_order():
    """The loss computes returns along each row, so a row must be one env's consecutive
    steps: 3 unrolls of 4 steps from 5 envs give 15 rows, row u * 5 + e being env e's
    steps 4u .. 4u + 3, and the env state continues after the last of them."""
    envs, unrolls, length = 5, 3, 4
    policy = lambda obs, key: (jnp.zeros((obs.shape[0], 1)), {})
    env_state, data = ppo.collect_unrolls(_CountingEnv(), _counting_state(envs), policy,
                                          jax.random.PRNGKey(0), unrolls, length,
                                          ("truncation",))
    assert data.observation.shape == (unrolls * envs, length, 2)
    assert data.extras["state_extras"]["truncation"].shape == (unrolls * envs, length)
    for u in range(unrolls):
        for e in range(envs):
            row = data.observation[u * envs + e]
            assert jnp.all(row[:, 0] == e)
            assert jnp.array_equal(row[:, 1], jnp.arange(u * length, (u + 1) * length))
    assert jnp.all(env_state.obs[:, 1] == unrolls * length)


def test_minibatches_hold_every_row_once_in_a_key_given_order():
    """An epoch sees every row exactly once, the same rows in every field of a transition,
    and another key gives another order (else every epoch would repeat one split)."""
    rows = jnp.arange(24)
    data = {"a": rows, "b": jnp.stack([rows, -rows], axis=1)}
    batches = ppo.minibatches(data, jax.random.PRNGKey(0), 4)
    assert batches["a"].shape == (4, 6) and batches["b"].shape == (4, 6, 2)
    assert sorted(batches["a"].ravel().tolist()) == list(range(24))
    assert jnp.array_equal(batches["b"][..., 0], batches["a"])
    assert jnp.array_equal(batches["b"][..., 1], -batches["a"])
    other = ppo.minibatches(data, jax.random.PRNGKey(1), 4)
    assert not jnp.array_equal(other["a"], batches["a"])
