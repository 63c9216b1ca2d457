"""The optimizer of the PPO update, and one minibatch's gradient step.

The actor and critic are separate networks trained on one summed loss. Clipping the
gradient of both by one global norm lets the critic, whose gradient is a hundred to a
thousand times the actor's, set the clip factor of the actor too. Adam cancels a steady
factor, but not a sudden drop: when the critic's gradient jumps at a discount switch, the
actor's steps shrink until Adam's running mean square forgets the old scale, millions of
env steps (benchmarks/adam_step_scale.py). `clip_gradients_per_network` clips each by its
own norm instead. Both clips are stateless, so the optimizer state, and with it a
checkpoint, has the same structure either way.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import optax

from mjxwalk.training.config import TrainConfig


def clip_each_by_global_norm(max_norm: float) -> optax.GradientTransformation:
    """Like `optax.clip_by_global_norm`, applied separately to each child of the gradient
    tree's root (for PPO's parameters: the policy's and the value function's); everything
    below a child counts toward that child's norm."""

    def clip(part):
        norm = optax.tree.norm(part)
        scale = max_norm / jnp.maximum(norm, max_norm)  # 1 up to max_norm
        return jax.tree.map(lambda g: (g * scale).astype(g.dtype), part)

    def update(updates, state, params=None):
        del params
        parts, treedef = jax.tree.flatten(updates, is_leaf=lambda x: x is not updates)
        return jax.tree.unflatten(treedef, [clip(p) for p in parts]), state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update)


def make_optimizer(config: TrainConfig, learning_rate: float | jax.Array | None = None
                   ) -> optax.GradientTransformation:
    """Clipped Adam at `learning_rate` (default: the config's). The rate may be a traced
    value: it scales the update without any state of its own, so the optimizer state has
    the same structure whatever the schedule (checkpoints stay interchangeable)."""
    rate = config.learning_rate if learning_rate is None else learning_rate
    return optax.chain(make_clip(config), optax.adam(rate))


def make_clip(config: TrainConfig) -> optax.GradientTransformation:
    """The config's gradient clip: per network or over both together."""
    clip = (clip_each_by_global_norm if config.clip_gradients_per_network
            else optax.clip_by_global_norm)
    return clip(config.max_grad_norm)


def gradient_update(loss_fn: Callable, optimizer: optax.GradientTransformation,
                    axis: str | None) -> Callable:
    """(params, *loss args, optimizer_state) -> ((loss, metrics), params, optimizer_state):
    one gradient step on `loss_fn` (which returns (loss, metrics)) with the gradients
    averaged over `axis`, as brax's `gradient_update_fn` takes it. `params` must have
    `policy` and `value` parts (brax's `PPONetworkParams`): the norms of their averaged
    gradients, before clipping, join the metrics as `policy_grad_norm` and
    `value_grad_norm`."""
    loss_and_grad = jax.value_and_grad(loss_fn, has_aux=True)

    def update(params, *args, optimizer_state):
        (loss, metrics), grads = loss_and_grad(params, *args)
        if axis is not None:
            grads = jax.lax.pmean(grads, axis)
        metrics = {**metrics, "policy_grad_norm": optax.tree.norm(grads.policy),
                   "value_grad_norm": optax.tree.norm(grads.value)}
        updates, optimizer_state = optimizer.update(grads, optimizer_state, params)
        return (loss, metrics), optax.apply_updates(params, updates), optimizer_state

    return update
