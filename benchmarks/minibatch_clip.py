"""How one gradient clip over the actor and critic together weights the actor's minibatches:
a run's checkpoint collects one training iteration's data (from the env states saved with
it, as a resume would), and each minibatch's gradient at the checkpoint's parameters is
measured, without any update.

    python benchmarks/minibatch_clip.py runs/<name> [benchmarks/results/<prefix>] [iterations]

Writes <prefix>_minibatch_clip.json: per minibatch the policy's and value function's
gradient norms, the falls in it, and the factor one global clip (`max_grad_norm`) would
scale the actor's gradient by; with their spread and the factor in the minibatches with the
most falls against the fewest. Adam cancels a factor shared by every minibatch, so only its
spread changes what the actor learns from which minibatch.
"""

import functools
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from mjxwalk import bench, results
from mjxwalk.training import augment, checkpoint, ppo
from mjxwalk.training.run import load_run
from mjxwalk.wrappers import BatchedEnv


def minibatch_norms(config, batched, networks, state, discounting, data, key):
    """(policy norm, value norm, falls) of each minibatch of one shuffle of `data`, by the
    loss training takes (with the estimator's, if the run has one)."""
    loss_fn = ppo.make_loss(config, batched, networks, discounting)
    grad_fn = jax.grad(lambda p, batch, k: loss_fn(p, state.normalizer_params, batch, k)[0])
    k_perm, k_loss = jax.random.split(key)
    batches = ppo.minibatches(data, k_perm, config.num_minibatches)

    def one(args):
        batch, k = args
        grads = grad_fn(state.params, batch, k)
        truncated = batch.extras["state_extras"]["truncation"]
        falls = jnp.sum((1.0 - batch.discount) * (1.0 - truncated))
        return optax.tree.norm(grads.policy), optax.tree.norm(grads.value), falls

    return jax.lax.map(one, (batches, jax.random.split(k_loss, config.num_minibatches)))


def _corr(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r, or None where either is constant (r is undefined there)."""
    return None if np.std(a) == 0 or np.std(b) == 0 else float(np.corrcoef(a, b)[0, 1])


def main(run_dir: Path, prefix: Path, iterations: int = 4) -> None:
    config, env, make_policy, step, state = load_run(run_dir)
    batched = BatchedEnv(env, config.num_envs, episode_length=config.episode_length)
    key = jax.random.PRNGKey(config.seed + 1)
    env_state = batched.reset(jax.random.split(key, config.num_envs))
    # saved per device, as the training step lays them out (one device here)
    saved, why_not = checkpoint.restore_envs(
        checkpoint.manager(run_dir / "checkpoints", 3), step,
        jax.tree.map(lambda x: x[None], env_state))
    if saved is None:
        print(f"starting from fresh episodes: {why_not}", file=sys.stderr)
    else:
        env_state = jax.tree.map(lambda x: x[0], saved)
    networks = ppo.make_networks(config, env)
    policy = make_policy((state.normalizer_params, state.params.policy, state.params.value))
    discounting = ppo.discounting_at(ppo.schedule(config), jnp.asarray(step))
    mirror = batched.unwrapped.mirror if config.symmetry_augmentation else None
    gather = jax.jit(lambda env_state, k: ppo.collect_unrolls(
        batched, env_state, policy, k, config.unrolls_per_env, config.unroll_length,
        ("truncation",)))
    measure = jax.jit(functools.partial(minibatch_norms, config, batched, networks, state))

    rows = []
    for i in range(iterations):
        key, k_collect, k_measure = jax.random.split(key, 3)
        env_state, data = gather(env_state, k_collect)
        if mirror is not None:
            data = augment.augment(data, mirror)
        rows += [dict(zip(("policy_grad_norm", "value_grad_norm", "falls"), map(float, r)))
                 for r in zip(*measure(discounting, data, k_measure))]
    policy_norm, value_norm, falls = (np.array([r[k] for r in rows]) for k in
                                      ("policy_grad_norm", "value_grad_norm", "falls"))
    factor = np.minimum(1.0, config.max_grad_norm / np.hypot(policy_norm, value_norm))
    weight = factor / np.sqrt(np.mean(factor ** 2))  # what Adam leaves of the factor
    # quarters by rank, so tied fall counts cannot put a minibatch in both
    order = np.argsort(falls, kind="stable")
    quarter = len(order) // 4
    fewest, most = order[:quarter], order[-quarter:]
    out = {"run": str(run_dir), "checkpoint_env_steps": step, "iterations": iterations,
           "discounting": float(discounting), "max_grad_norm": config.max_grad_norm,
           "minibatches": len(rows),
           "summary": {
               "policy_grad_norm_median": float(np.median(policy_norm)),
               "value_grad_norm_median": float(np.median(value_norm)),
               "global_clip_factor_median": float(np.median(factor)),
               "actor_weight_range_5_95": np.quantile(weight, [0.05, 0.95]).tolist(),
               "actor_weight_coefficient_of_variation": float(np.std(factor) / np.mean(factor)),
               "falls_per_minibatch_mean": float(np.mean(falls)),
               "corr_falls_value_grad_norm": _corr(falls, value_norm),
               "corr_falls_actor_weight": _corr(falls, weight),
               "actor_weight_most_falls_quarter": float(np.mean(weight[most])),
               "actor_weight_fewest_falls_quarter": float(np.mean(weight[fewest]))},
           "per_minibatch": rows, "versions": bench.versions()}
    results.write(f"{prefix}_minibatch_clip.json", out)
    for k, v in out["summary"].items():
        print(f"{k}: {v if v is None else np.round(v, 3).tolist()}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"),
         int(sys.argv[3]) if len(sys.argv) > 3 else 4)
