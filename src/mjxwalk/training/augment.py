"""Symmetry augmentation of PPO data: every collected trajectory also as its mirror image.

A left-right symmetric robot in a symmetric world earns the same rewards along the mirror
image of a trajectory, so each unroll gives a second, valid one for free: the actor learns
to recover from a push from the left by what it did after a push from the right.

The mirrored sample (o', a') is drawn from the mirror image of the behaviour policy, whose
probability of a' at o' is the behaviour policy's probability of a at o. So the importance
ratio of PPO keeps the original behaviour log-probability: no assumption that the policy is
already symmetric is made.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from brax.training import types


def mirror_transitions(data: types.Transition, mirror) -> types.Transition:
    """The mirror image of `data` (any leading shape; `mirror` is a
    `mjxwalk.envs.walk_mirror.Mirror`)."""

    def observation(o):
        return {"state": mirror.state.apply(o["state"]),
                "privileged_state": mirror.privileged_state.apply(o["privileged_state"])}

    policy_extras = dict(data.extras["policy_extras"])
    policy_extras["raw_action"] = mirror.action.apply(policy_extras["raw_action"])
    if "distribution_params" in policy_extras:
        # (loc, raw scale): the mean mirrors, a scale only moves to the partner joint
        loc, scale = jnp.split(policy_extras["distribution_params"], 2, axis=-1)
        policy_extras["distribution_params"] = jnp.concatenate(
            [mirror.action.apply(loc), scale[..., mirror.action.index]], axis=-1)
    return data._replace(observation=observation(data.observation),
                         next_observation=observation(data.next_observation),
                         action=mirror.action.apply(data.action),
                         extras={**data.extras, "policy_extras": policy_extras})


def augment(data: types.Transition, mirror) -> types.Transition:
    """`data` followed by its mirror image along the first (trajectory) axis."""
    mirrored = mirror_transitions(data, mirror)
    return jax.tree.map(lambda a, b: jnp.concatenate([a, b], axis=0), data, mirrored)
