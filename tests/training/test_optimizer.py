"""The optimizer: clipping each network's gradient by its own norm, and the gradient step's
norm metrics."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from brax.training.agents.ppo import losses as ppo_losses

from mjxwalk.training import optimizer
from mjxwalk.training.config import smoke


def _params(policy_norm: float, value_norm: float) -> ppo_losses.PPONetworkParams:
    # 3-4-5 vectors: each part's norm is exactly the one asked for
    return ppo_losses.PPONetworkParams(
        policy={"w": jnp.array([3.0, 4.0]) * policy_norm / 5.0},
        value={"w": jnp.array([0.0, 3.0]) * value_norm / 3.0, "b": jnp.zeros(2)})


def _norms(tree) -> tuple[float, float]:
    return float(optax.tree.norm(tree.policy)), float(optax.tree.norm(tree.value))


def test_each_network_is_clipped_by_its_own_norm():
    """A critic gradient of norm 100 must not shrink an actor gradient of norm 0.5, which
    one global clip at 1 would scale by 1/100; the critic's alone is cut to 1."""
    grads = _params(policy_norm=0.5, value_norm=100.0)
    clipped, _ = optimizer.clip_each_by_global_norm(1.0).update(grads, optax.EmptyState())
    np.testing.assert_allclose(_norms(clipped), (0.5, 1.0), rtol=1e-6)
    np.testing.assert_allclose(clipped.policy["w"], grads.policy["w"])
    # the direction of a clipped part is kept
    np.testing.assert_allclose(clipped.value["w"], grads.value["w"] / 100.0, rtol=1e-6)

    # one global clip: both parts scaled by 1 / |(0.5, 100)|
    together, _ = optax.clip_by_global_norm(1.0).update(grads, optax.EmptyState())
    np.testing.assert_allclose(_norms(together)[0], 0.5 / np.hypot(0.5, 100.0), rtol=1e-5)


def test_a_zero_gradient_stays_zero():
    clipped, _ = optimizer.clip_each_by_global_norm(1.0).update(_params(0.0, 0.0),
                                                                optax.EmptyState())
    assert all(np.all(np.isfinite(x)) and not np.any(x) for x in jax.tree.leaves(clipped))


def test_the_optimizer_state_does_not_depend_on_the_clip():
    """A checkpoint written with either clip resumes with the other."""
    params = _params(1.0, 1.0)
    states = [optimizer.make_optimizer(dataclasses.replace(smoke(), clip_gradients_per_network=c))
              .init(params) for c in (False, True)]
    assert jax.tree.structure(states[0]) == jax.tree.structure(states[1])


def _loss_fn(params, scale):
    # 0.5 |params|^2 has the params themselves as its gradient
    loss = 0.5 * scale * sum(jnp.sum(x ** 2) for x in jax.tree.leaves(params))
    return loss, {"loss": loss}


def test_the_gradient_step_reports_each_networks_norm_before_clipping():
    params = _params(policy_norm=2.0, value_norm=30.0)
    opt = optax.chain(optimizer.clip_each_by_global_norm(1.0), optax.sgd(1.0))
    update = optimizer.gradient_update(_loss_fn, opt, axis=None)
    (loss, metrics), new_params, _ = update(params, 1.0, optimizer_state=opt.init(params))
    np.testing.assert_allclose(float(metrics["policy_grad_norm"]), 2.0, rtol=1e-6)
    np.testing.assert_allclose(float(metrics["value_grad_norm"]), 30.0, rtol=1e-6)
    np.testing.assert_allclose(float(loss), 0.5 * (4.0 + 900.0), rtol=1e-6)
    # plain SGD at rate 1: each network moved by its clipped gradient, of norm 1
    step = jax.tree.map(lambda new, old: old - new, new_params, params)
    np.testing.assert_allclose(_norms(step), (1.0, 1.0), rtol=1e-5)


@pytest.mark.parametrize("per_network", [False, True])
def test_the_config_chooses_the_clip(per_network):
    """An actor gradient of norm 0.5 beside a critic's of 100: clipped together it shrinks
    200-fold, each by its own norm it is left whole."""
    params = _params(policy_norm=0.5, value_norm=100.0)
    config = dataclasses.replace(smoke(), clip_gradients_per_network=per_network,
                                 max_grad_norm=1.0)
    clipped, _ = optimizer.make_clip(config).update(params, optax.EmptyState())
    want = 0.5 if per_network else 0.5 / np.hypot(0.5, 100.0)
    np.testing.assert_allclose(_norms(clipped)[0], want, rtol=1e-5)


def test_the_step_without_the_option_is_brax_s():
    """With one global clip the step is the one brax's `gradient_update_fn` took before
    this module replaced it: same loss, parameters and optimizer state."""
    from brax.training import gradients

    params = _params(policy_norm=2.0, value_norm=30.0)
    opt = optimizer.make_optimizer(smoke(), learning_rate=0.01)
    ours = optimizer.gradient_update(_loss_fn, opt, axis=None)
    theirs = gradients.gradient_update_fn(_loss_fn, opt, pmap_axis_name=None, has_aux=True)
    state = opt.init(params)
    a, b = ours(params, 1.0, optimizer_state=state), theirs(params, 1.0, optimizer_state=state)
    np.testing.assert_array_equal(float(a[0][0]), float(b[0][0]))
    for x, y in zip(jax.tree.leaves(a[1:]), jax.tree.leaves(b[1:])):
        np.testing.assert_array_equal(x, y)
