"""The PPO update, built from brax's parts (networks, losses, acting, gradients).

brax's `ppo.train()` owns its training state and drops the optimizer state on restore
(brax issue #655); here the whole state is ours, so a checkpoint holds all of it and a
resumed run continues exactly. One iteration = collect `batch_size x num_minibatches`
unrolls of `unroll_length` steps, update the observation normalizer, then
`num_updates_per_batch` passes of minibatch gradient steps. With `symmetry_augmentation`
the collected unrolls are joined by their mirror images first (`mjxwalk.training.augment`).
With `discounting_final` the discount, and with `learning_rate_final` the learning rate,
are chosen inside the compiled step from the state's step counter and a `Schedule` the step
takes as an argument: a resume lands on the right point of the schedule, and runs that
differ only in it share one compiled step (and its compilation cache entry). `iteration` is
pmapped over the local devices (and, with jax.distributed, all hosts' devices share one
axis).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from brax.training import acting
from brax.training.acme import running_statistics, specs
from brax.training.agents.ppo import losses as ppo_losses
from brax.training.agents.ppo import networks as ppo_networks
from flax import struct

from mjxwalk.training import augment, estimator
from mjxwalk.training.config import TrainConfig
from mjxwalk.training.optimizer import gradient_update, make_optimizer

AXIS = "devices"
"""pmap axis name shared by gradients and normalizer statistics."""


@struct.dataclass
class TrainingState:
    """Everything an update changes; a checkpoint of this resumes training exactly."""

    params: ppo_losses.PPONetworkParams
    """Actor and critic weights."""
    optimizer_state: Any
    """Adam moments and counters."""
    normalizer_params: running_statistics.RunningStatisticsState
    """Observation mean/std statistics."""
    env_steps: jax.Array
    """Environment steps trained so far (all devices)."""
    rng: jax.Array
    """Random key for the next iteration."""


@struct.dataclass
class Schedule:
    """The hyperparameters that change with the env step count, as arrays: an argument of
    the compiled iteration rather than constants inside it."""

    discounting: jax.Array
    """Discount factor before `discounting_switch_steps`."""
    discounting_final: jax.Array
    """Discount factor from `discounting_switch_steps` on (`discounting` without a switch)."""
    discounting_switch_steps: jax.Array
    """Env steps at which the discount switches."""
    learning_rate: jax.Array
    """Learning rate before the decay starts."""
    learning_rate_final: jax.Array
    """Learning rate at the run's last env step (`learning_rate` without a decay)."""
    decay_start_steps: jax.Array
    """Env steps at which the learning rate starts to decay."""
    decay_steps: jax.Array
    """Env steps from the decay's start to the run's end (at least 1)."""


def schedule(config: TrainConfig) -> Schedule:
    """`config`'s schedule. Without `discounting_final` or `learning_rate_final` (or with a
    decay that starts at or past the run's end) the final value is the constant one."""
    start, end = config.learning_rate_decay_start_steps, config.num_timesteps
    decays = config.learning_rate_final is not None and start < end
    f32 = np.float32
    return Schedule(
        discounting=f32(config.discounting),
        discounting_final=f32(config.discounting if config.discounting_final is None
                              else config.discounting_final),
        discounting_switch_steps=np.int32(config.discounting_switch_steps),
        learning_rate=f32(config.learning_rate),
        learning_rate_final=f32(config.learning_rate_final if decays else config.learning_rate),
        decay_start_steps=f32(start), decay_steps=f32(max(end - start, 1)))


def make_networks(config: TrainConfig, env):
    """brax's PPO networks for `env` (actor on 'state', critic on 'privileged_state'), with
    the estimator of `config.estimator_targets` inside the actor when there are any."""
    if config.estimator_targets:
        return estimator.make_ppo_networks(
            env.observation_size, env.action_size, normalizer_fn(config), config.policy_hidden,
            config.value_hidden, _estimator_slices(config, env), config.estimator_hidden)
    return ppo_networks.make_ppo_networks(
        env.observation_size, env.action_size, preprocess_observations_fn=normalizer_fn(config),
        policy_hidden_layer_sizes=config.policy_hidden,
        value_hidden_layer_sizes=config.value_hidden,
        policy_obs_key="state", value_obs_key="privileged_state")


def normalizer_fn(config: TrainConfig):
    """The observation preprocessing of the networks: running mean/std, or none."""
    return running_statistics.normalize if config.normalize_observations else lambda x, y: x


def _estimator_slices(config: TrainConfig, env) -> tuple[slice, ...]:
    return estimator.target_slices(env.unwrapped.privileged_parts, config.estimator_targets)


def init_state(config: TrainConfig, networks, observation_size: dict, rng: jax.Array
               ) -> TrainingState:
    rng, k_policy, k_value = jax.random.split(rng, 3)
    params = ppo_losses.PPONetworkParams(policy=networks.policy_network.init(k_policy),
                                         value=networks.value_network.init(k_value))
    obs_spec = {k: specs.Array(shape, jnp.dtype("float32")) for k, shape in observation_size.items()}
    return TrainingState(params=params, optimizer_state=make_optimizer(config).init(params),
                         normalizer_params=running_statistics.init_state(obs_spec),
                         env_steps=jnp.zeros((), jnp.int32), rng=rng)


def make_loss(config: TrainConfig, env, networks, discounting: float | jax.Array):
    """brax's PPO loss at `discounting`, plus the estimator's regression loss when the
    config has estimator targets: (params, normalizer_params, data, rng) -> (loss, metrics)."""
    loss_fn = functools.partial(
        ppo_losses.compute_ppo_loss, ppo_network=networks, entropy_cost=config.entropy_cost,
        discounting=discounting, reward_scaling=config.reward_scaling,
        gae_lambda=config.gae_lambda, clipping_epsilon=config.clipping_epsilon,
        normalize_advantage=True)
    if not config.estimator_targets:
        return loss_fn
    slices = _estimator_slices(config, env)
    estimator_net = estimator.make_estimator(estimator.estimate_size(slices),
                                             config.estimator_hidden, normalizer_fn(config))
    return estimator.with_estimator_loss(loss_fn, estimator_net, slices,
                                         config.estimator_loss_weight)


def make_iteration(config: TrainConfig, env, networks, envs_per_device: int, axis: str | None):
    """(TrainingState, env_state, Schedule) -> (TrainingState, env_state, metrics), one
    device's work."""
    make_policy = ppo_networks.make_inference_fn(networks)

    def make_update(discounting, learning_rate):
        return gradient_update(make_loss(config, env, networks, discounting),
                               make_optimizer(config, learning_rate), axis)

    mirror = env.unwrapped.mirror if config.symmetry_augmentation else None

    def minibatch_step(carry, batch, normalizer_params, update):
        opt_state, params, key = carry
        key, k_loss = jax.random.split(key)
        (_, metrics), params, opt_state = update(params, normalizer_params, batch, k_loss,
                                                 optimizer_state=opt_state)
        return (opt_state, params, key), metrics

    def epoch(carry, _, data, normalizer_params, update):
        opt_state, params, key = carry
        key, k_perm, k_grad = jax.random.split(key, 3)

        (opt_state, params, _), metrics = jax.lax.scan(
            functools.partial(minibatch_step, normalizer_params=normalizer_params,
                              update=update),
            (opt_state, params, k_grad), minibatches(data, k_perm, config.num_minibatches))
        return (opt_state, params, key), metrics

    def iteration(state: TrainingState, env_state, schedule: Schedule):
        rng, k_unroll, k_sgd = jax.random.split(state.rng, 3)
        policy = make_policy((state.normalizer_params, state.params.policy, state.params.value))

        env_state, data = collect_unrolls(env, env_state, policy, k_unroll, config.unrolls_per_env,
                                          config.unroll_length,
                                          ("truncation", "step_metrics"))
        step_metrics = data.extras["state_extras"].pop("step_metrics")
        metrics = {"env/reward": jnp.mean(data.reward), "env/done": jnp.mean(1.0 - data.discount)}
        if mirror is not None:  # every minibatch then holds twice the unrolls
            data = augment.augment(data, mirror)
        normalizer = state.normalizer_params
        if config.normalize_observations:
            normalizer = running_statistics.update(normalizer, data.observation,
                                                   pmap_axis_name=axis)
        discounting = discounting_at(schedule, state.env_steps)
        metrics["train/discounting"] = jnp.asarray(discounting, jnp.float32)
        learning_rate = learning_rate_at(schedule,
                                         state.env_steps + config.env_steps_per_iteration)
        metrics["train/learning_rate"] = jnp.asarray(learning_rate, jnp.float32)
        (opt_state, params, _), loss_metrics = jax.lax.scan(
            functools.partial(epoch, data=data, normalizer_params=normalizer,
                              update=make_update(discounting, learning_rate)),
            (state.optimizer_state, state.params, k_sgd), None,
            length=config.num_updates_per_batch)
        metrics.update({f"loss/{k}": jnp.mean(v) for k, v in loss_metrics.items()})
        metrics.update({f"env/{k}": jnp.mean(v) for k, v in step_metrics.items()})
        if axis is not None:
            metrics = jax.lax.pmean(metrics, axis)
        steps = config.env_steps_per_iteration
        new_state = TrainingState(params=params, optimizer_state=opt_state,
                                  normalizer_params=normalizer,
                                  env_steps=state.env_steps + steps, rng=rng)
        return new_state, env_state, metrics

    return iteration


def collect_unrolls(env, env_state, policy, key: jax.Array, unrolls: int, unroll_length: int,
                    extra_fields: tuple[str, ...]):
    """`unrolls` consecutive unrolls of `unroll_length` steps from every env of `env_state`:
    (env_state, data) with data laid out (unrolls * envs, unroll_length, ...), each row one
    env's unroll, as the loss takes them."""
    def step(carry, _):
        env_state, key = carry
        key, k = jax.random.split(key)
        env_state, data = acting.generate_unroll(env, env_state, policy, k, unroll_length,
                                                 extra_fields=extra_fields)
        return (env_state, key), data

    (env_state, _), data = jax.lax.scan(step, (env_state, key), None, length=unrolls)
    # (unrolls, unroll_length, envs, ...) -> (unrolls * envs, unroll_length, ...)
    data = jax.tree.map(lambda x: jnp.swapaxes(x, 1, 2), data)
    return env_state, jax.tree.map(lambda x: jnp.reshape(x, (-1,) + x.shape[2:]), data)


def minibatches(data, key: jax.Array, num_minibatches: int):
    """`data`'s rows shuffled by `key` and split into `num_minibatches` equal minibatches
    along a new leading axis (one epoch's order)."""
    def shuffle(x):
        x = jax.random.permutation(key, x)
        return jnp.reshape(x, (num_minibatches, -1) + x.shape[1:])

    return jax.tree.map(shuffle, data)


def discounting_at(schedule: Schedule, env_steps: jax.Array) -> jax.Array:
    """The discount factor of the iteration that starts after `env_steps` env steps."""
    return jnp.where(env_steps >= schedule.discounting_switch_steps,
                     schedule.discounting_final, schedule.discounting)


def learning_rate_at(schedule: Schedule, env_steps: jax.Array) -> jax.Array:
    """The learning rate of the iteration that ends at `env_steps` env steps: `learning_rate`
    until the decay starts, then linear to `learning_rate_final` at the run's last step (so
    the last iteration trains at exactly that rate), then held."""
    done = jnp.clip((jnp.asarray(env_steps, jnp.float32) - schedule.decay_start_steps)
                    / schedule.decay_steps, 0.0, 1.0)
    return schedule.learning_rate + done * (schedule.learning_rate_final - schedule.learning_rate)


def finite(tree) -> jax.Array:
    """True when every float leaf of `tree` is finite."""
    leaves = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree)
              if jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating)]
    return jnp.all(jnp.stack(leaves)) if leaves else jnp.array(True)
