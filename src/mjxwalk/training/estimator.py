"""A learned estimate, for the actor, of what the robot cannot measure (concurrent estimation).

A small MLP reads the actor's own observation (its history of frames) and regresses parts of
the critic's privileged observation, such as the torso's linear velocity; the actor then
sees its observation with that estimate appended. The estimator learns only from its
regression loss (the actor gets the estimate through a stop-gradient, so PPO's gradients do
not bend it), and both nets live in the policy's parameters, so acting, checkpoints and
export need nothing else: the policy still maps the contract's observation to an action.
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
from brax.training import networks
from brax.training.agents.ppo import networks as ppo_networks

from mjxwalk.errors import ConfigError

OBS_KEY = "state"
"""The actor's observation, the estimator's input."""
TARGET_KEY = "privileged_state"
"""The critic's observation, which holds the estimator's targets (raw, not normalized)."""


def target_slices(parts: Sequence[tuple[str, int]], names: Sequence[str]) -> tuple[slice, ...]:
    """Where each named part lies in the privileged observation laid out as `parts`
    ((name, size) in order); a ConfigError names any part that does not exist."""
    starts, start = {}, 0
    for name, size in parts:
        starts[name] = slice(start, start + size)
        start += size
    unknown = [n for n in names if n not in starts]
    if unknown:
        raise ConfigError(f"estimator_targets {unknown} are not parts of the privileged "
                          f"observation; choose from {list(starts)}")
    if len(set(names)) != len(names):
        raise ConfigError(f"estimator_targets {list(names)} name a part twice")
    return tuple(starts[n] for n in names)


def targets(privileged_state: jax.Array, slices: Sequence[slice]) -> jax.Array:
    """The estimator's regression targets, cut from raw privileged observations (..., n)."""
    return jnp.concatenate([privileged_state[..., s] for s in slices], axis=-1)


def _normalized(preprocess_observations_fn, processor_params, obs):
    return preprocess_observations_fn(obs[OBS_KEY],
                                      networks.normalizer_select(processor_params, OBS_KEY))


def _mlp(hidden: Sequence[int], out: int) -> networks.MLP:
    # brax's PPO networks' own activation and init, so the actor differs only by its inputs
    return networks.MLP(layer_sizes=list(hidden) + [out], activation=jax.nn.swish,
                        kernel_init=jax.nn.initializers.lecun_uniform())


def make_estimator(estimate_size: int, estimator_hidden: Sequence[int],
                   preprocess_observations_fn) -> networks.FeedForwardNetwork:
    """The estimator alone: apply(normalizer, policy_params, obs) -> estimate. Only its
    apply is used: its parameters are initialized inside the policy's."""
    mlp = _mlp(estimator_hidden, estimate_size)

    def apply(processor_params, policy_params, obs):
        return mlp.apply(policy_params["estimator"],
                         _normalized(preprocess_observations_fn, processor_params, obs))

    def init(key):
        raise TypeError("the estimator's parameters are made by the policy network's init")

    return networks.FeedForwardNetwork(init=init, apply=apply)


def make_policy_network(param_size: int, state_size: int, estimate_size: int,
                        policy_hidden: Sequence[int], estimator_hidden: Sequence[int],
                        preprocess_observations_fn) -> networks.FeedForwardNetwork:
    """The policy network brax's PPO acts and learns with: the actor MLP on the normalized
    observation and the estimate. Its parameters are {'estimator': ..., 'actor': ...}."""
    actor, estimator = _mlp(policy_hidden, param_size), _mlp(estimator_hidden, estimate_size)

    def apply(processor_params, policy_params, obs):
        state = _normalized(preprocess_observations_fn, processor_params, obs)
        guess = jax.lax.stop_gradient(estimator.apply(policy_params["estimator"], state))
        return actor.apply(policy_params["actor"], jnp.concatenate([state, guess], axis=-1))

    def init(key):
        k_estimator, k_actor = jax.random.split(key)
        return {"estimator": estimator.init(k_estimator, jnp.zeros((1, state_size))),
                "actor": actor.init(k_actor, jnp.zeros((1, state_size + estimate_size)))}

    return networks.FeedForwardNetwork(init=init, apply=apply)


def estimate_size(slices: Sequence[slice]) -> int:
    return sum(s.stop - s.start for s in slices)


def loss(estimator_net: networks.FeedForwardNetwork, slices: Sequence[slice], policy_params,
         normalizer_params, observation: dict) -> jax.Array:
    """Mean squared error of the estimate against the privileged truth, over a batch."""
    guess = estimator_net.apply(normalizer_params, policy_params, observation)
    return jnp.mean(jnp.square(guess - targets(observation[TARGET_KEY], slices)))


def with_estimator_loss(ppo_loss, estimator_net, slices: Sequence[slice], weight: float):
    """brax's PPO loss plus `weight` x the estimator's regression loss (reported alone as
    'estimator_loss')."""

    def total(params, normalizer_params, data, rng):
        value, metrics = ppo_loss(params, normalizer_params, data, rng)
        error = loss(estimator_net, slices, params.policy, normalizer_params, data.observation)
        return value + weight * error, {**metrics, "estimator_loss": error}

    return total


def make_ppo_networks(observation_size: dict, action_size: int, preprocess_observations_fn,
                      policy_hidden: Sequence[int], value_hidden: Sequence[int],
                      slices: Sequence[slice], estimator_hidden: Sequence[int]
                      ) -> ppo_networks.PPONetworks:
    """brax's PPO networks (asymmetric critic on the privileged observation) with the
    estimator inside the policy."""
    base = ppo_networks.make_ppo_networks(
        observation_size, action_size, preprocess_observations_fn=preprocess_observations_fn,
        policy_hidden_layer_sizes=policy_hidden, value_hidden_layer_sizes=value_hidden,
        policy_obs_key=OBS_KEY, value_obs_key=TARGET_KEY)
    distribution = base.parametric_action_distribution
    policy = make_policy_network(distribution.param_size, observation_size[OBS_KEY][0],
                                 estimate_size(slices), policy_hidden, estimator_hidden,
                                 preprocess_observations_fn)
    return ppo_networks.PPONetworks(policy_network=policy, value_network=base.value_network,
                                    parametric_action_distribution=distribution)
