"""How well a run's learned estimate (`--estimator-targets`) follows the simulator's truth:
the walk report's forward and stand scenarios under its kicks, acting deterministically.

    python benchmarks/estimator_accuracy.py runs/<name> [benchmarks/results/<prefix>] [episodes]

Writes <prefix>_estimator.json: per target component the RMS error, the truth's standard
deviation (what guessing its mean would score) and the share of its variance explained,
over all steps, over the `AFTER_KICK_S` after each kick (where a walk policy falls) and
over the rest.
"""

import sys
from pathlib import Path

import jax

from mjxwalk import bench, results
from mjxwalk.errors import ConfigError
from mjxwalk.training import estimator, evaluate, ppo
from mjxwalk.training.run import load_run, saved_config

AFTER_KICK_S = 0.5
"""Window after each kick, s: the report's falls begin 0.5-1 s after one."""


def component_names(parts, names) -> list[str]:
    sizes = dict(parts)
    axes = {3: ("x", "y", "z"), 2: ("left", "right")}
    return [f"{n}_{a}" for n in names for a in axes.get(sizes[n], range(sizes[n]))]


def accuracy(config, env_parts, make_policy, state, scenario: str, num_envs: int,
             seconds: float) -> dict:
    slices = estimator.target_slices(env_parts, config.estimator_targets)
    net = estimator.make_estimator(estimator.estimate_size(slices), config.estimator_hidden,
                                   ppo.normalizer_fn(config))

    def record(s):
        return (net.apply(state.normalizer_params, state.params.policy, s.obs),
                estimator.targets(s.obs[estimator.TARGET_KEY], slices), s.metrics["pushes"])

    policy = evaluate.policy_fn(make_policy, state, deterministic=True)
    env, recorded = evaluate.scenario_rollout(config, policy, scenario, num_envs, seconds, record)
    (guess, truth, pushes), alive = jax.device_get(recorded)
    alive = alive > 0
    after_kick = evaluate.steps_since(pushes > 0) < int(round(AFTER_KICK_S / env.dt))
    return {"all": evaluate.estimate_errors(guess, truth, alive),
            f"first_{AFTER_KICK_S}s_after_kicks": evaluate.estimate_errors(
                guess, truth, alive & after_kick),
            "otherwise": evaluate.estimate_errors(guess, truth, alive & ~after_kick)}


def main(run_dir: Path, prefix: Path, num_envs: int = 128, seconds: float = 20.0) -> None:
    # before load_run restores the checkpoint, which takes a while
    if not saved_config(run_dir).estimator_targets:
        raise ConfigError(f"{run_dir} was trained without an estimator (--estimator-targets)")
    config, env, make_policy, step, state = load_run(run_dir)
    out = {"run": str(run_dir), "checkpoint_env_steps": step, "episodes": num_envs,
           "seconds": seconds, "pushes": evaluate.ACCEPTANCE_PUSHES,
           "components": component_names(env.privileged_parts, config.estimator_targets),
           "scenarios": {name: accuracy(config, env.privileged_parts, make_policy, state, name,
                                        num_envs, seconds)
                         for name in ("forward_0.3", "stand")},
           "versions": bench.versions()}
    results.write(f"{prefix}_estimator.json", out)
    print(results.dumps(out["scenarios"]))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"),
         int(sys.argv[3]) if len(sys.argv) > 3 else 128)
