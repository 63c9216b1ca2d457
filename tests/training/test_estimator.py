"""The actor's learned estimate of the privileged state: layout, gradients, learning, a run."""

import dataclasses
import json
import math
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from brax.training.acme import running_statistics, specs

from mjxwalk.errors import ConfigError
from mjxwalk.training import checkpoint, estimator, ppo
from mjxwalk.training.config import smoke
from mjxwalk.training.run import load_run, train

PARTS = [("frame", 5), ("lin_vel", 3), ("height", 1), ("feet_contact", 2)]
STATE_SIZE = 12


def _normalizer(state_size=STATE_SIZE, parts=PARTS):
    return running_statistics.init_state({
        "state": specs.Array((state_size,), jnp.dtype("float32")),
        "privileged_state": specs.Array((sum(n for _, n in parts),), jnp.dtype("float32"))})


def _nets(estimate_size=3):
    normalize = running_statistics.normalize
    policy = estimator.make_policy_network(8, STATE_SIZE, estimate_size, (16,), (32, 32),
                                           normalize)
    return policy, estimator.make_estimator(estimate_size, (32, 32), normalize)


def test_target_slices_follow_the_layout():
    lin_vel, contact = estimator.target_slices(PARTS, ("lin_vel", "feet_contact"))
    privileged = jnp.arange(11.0)
    assert lin_vel == slice(5, 8) and contact == slice(9, 11)
    np.testing.assert_array_equal(estimator.targets(privileged, (lin_vel, contact)),
                                  [5, 6, 7, 9, 10])


@pytest.mark.parametrize("names,message", [
    (("lin_vel", "speed"), r"\['speed'\] are not parts.*choose from \['frame', 'lin_vel'"),
    (("lin_vel", "lin_vel"), "name a part twice"),
])
def test_target_slices_reject_what_the_layout_lacks(names, message):
    with pytest.raises(ConfigError, match=message):
        estimator.target_slices(PARTS, names)


def test_unknown_target_fails_before_anything_compiles(walk_env):
    config = dataclasses.replace(smoke(), estimator_targets=("base_velocity",))
    with pytest.raises(ConfigError, match="'base_velocity'.*lin_vel"):
        ppo.make_networks(config, walk_env)


def test_walk_env_lin_vel_target_is_the_torso_velocity(walk_env):
    """The slice named lin_vel is the 3-vector after the clean frame in the critic's view."""
    (s,) = estimator.target_slices(walk_env.privileged_parts, ("lin_vel",))
    assert s == slice(walk_env.contract.frame_size, walk_env.contract.frame_size + 3)
    assert walk_env.privileged_size == walk_env.observation_size["privileged_state"][0]


def test_each_loss_trains_only_its_own_network():
    """PPO's gradient (through the action) must not move the estimator, and the regression
    must not move the actor: the estimate enters the actor through a stop-gradient."""
    policy, est = _nets()
    params = policy.init(jax.random.PRNGKey(0))
    normalizer = _normalizer()
    obs = {"state": jax.random.normal(jax.random.PRNGKey(1), (4, STATE_SIZE)),
           "privileged_state": jax.random.normal(jax.random.PRNGKey(2), (4, 11))}
    slices = estimator.target_slices(PARTS, ("lin_vel",))

    def norm(tree):
        return sum(float(jnp.sum(jnp.abs(x))) for x in jax.tree.leaves(tree))

    g_act = jax.grad(lambda p: jnp.sum(policy.apply(normalizer, p, obs)))(params)
    g_est = jax.grad(lambda p: estimator.loss(est, slices, p, normalizer, obs))(params)
    assert norm(g_act["estimator"]) == 0.0 and norm(g_act["actor"]) > 0.0
    assert norm(g_est["actor"]) == 0.0 and norm(g_est["estimator"]) > 0.0


def test_actor_sees_the_estimate():
    """Changing only the estimator's weights changes the action: the estimate is an input."""
    policy, _ = _nets()
    params = policy.init(jax.random.PRNGKey(0))
    obs = {"state": jnp.ones((1, STATE_SIZE))}
    shifted = {**params, "estimator": jax.tree.map(lambda x: x + 0.5, params["estimator"])}
    a, b = policy.apply(_normalizer(), params, obs), policy.apply(_normalizer(), shifted, obs)
    assert float(jnp.max(jnp.abs(a - b))) > 1e-3


def test_estimator_learns_a_hidden_velocity():
    """A velocity that is a smooth function of the observation is learned to within a tenth
    of its variance (a constant guess scores 1.0), on samples it was not trained on."""
    key_w, key_train, key_test = jax.random.split(jax.random.PRNGKey(3), 3)
    mixing = jax.random.normal(key_w, (STATE_SIZE, 3)) / math.sqrt(STATE_SIZE)

    def batch(key, n):
        state = jax.random.normal(key, (n, STATE_SIZE))
        velocity = jnp.tanh(state @ mixing) + 0.3 * state[:, :3] ** 2
        junk = jnp.zeros((n, 11)).at[:, 5:8].set(velocity)
        return {"state": state, "privileged_state": junk}, velocity

    policy, est = _nets()
    slices = estimator.target_slices(PARTS, ("lin_vel",))
    params, normalizer = policy.init(jax.random.PRNGKey(0)), _normalizer()
    train_obs, _ = batch(key_train, 2048)
    test_obs, test_velocity = batch(key_test, 512)
    optimizer = optax.adam(3e-3)
    opt_state = optimizer.init(params)

    @jax.jit
    def step(params, opt_state):
        value, grad = jax.value_and_grad(
            lambda p: estimator.loss(est, slices, p, normalizer, train_obs))(params)
        updates, opt_state = optimizer.update(grad, opt_state)
        return optax.apply_updates(params, updates), opt_state, value

    for _ in range(400):
        params, opt_state, _ = step(params, opt_state)
    held_out = float(estimator.loss(est, slices, params, normalizer, test_obs))
    assert held_out < 0.1 * float(jnp.mean(jnp.var(test_velocity, axis=0)))


@pytest.fixture(scope="module")
def estimator_run(tmp_path_factory):
    config = dataclasses.replace(smoke(), estimator_targets=("lin_vel",))
    return config, train(config, out=tmp_path_factory.mktemp("runs") / "estimator",
                         show_progress=False)


def test_run_with_an_estimator_trains_reloads_and_acts(estimator_run, walk_env):
    config, result = estimator_run
    rows = [json.loads(line) for line in
            (result.run_dir / "metrics.jsonl").read_text().splitlines()]
    losses = [r["loss/estimator_loss"] for r in rows]
    assert len(losses) == len(rows) and all(math.isfinite(x) and x > 0 for x in losses)
    _, env, make_policy, steps, state = load_run(result.run_dir)
    assert steps == config.num_timesteps and set(state.params.policy) == {"estimator", "actor"}
    # an observation of the env's shapes: a reset would cost a compile, acting needs none
    obs = {name: jax.random.normal(jax.random.PRNGKey(i), (1,) + shape)
           for i, (name, shape) in enumerate(sorted(env.observation_size.items()))}
    action, _ = make_policy((state.normalizer_params, state.params.policy, state.params.value),
                            deterministic=True)(obs, jax.random.PRNGKey(1))
    assert action.shape == (1, walk_env.action_size) and bool(jnp.all(jnp.isfinite(action)))


def test_resume_without_the_estimator_is_refused(estimator_run, tmp_path):
    config, result = estimator_run
    d = tmp_path / "copy"
    shutil.copytree(result.run_dir, d)
    with pytest.raises(checkpoint.CheckpointError, match="estimator_targets"):
        train(dataclasses.replace(config, estimator_targets=()), out=d, resume=True,
              show_progress=False)
