"""Which pushes knock a trained walk policy over: each push of the walk report's forward and
stand scenarios, by size, by direction against the torso's heading, by the feet on the
ground and by the gait clock's time to its next touch-down.

    python benchmarks/push_recovery.py runs/<name> [benchmarks/results/<prefix>]

Writes <prefix>_pushes.json. A push counts as a fall when the episode ends in a fall within
`FALL_WINDOW_S` after it (the report's falls come 0.5-1 s after a push). Each scenario also
lists its kicks one by one (`mjxwalk.training.kicks.KICK_COLUMNS`): kick times and
world-frame kicks follow the episode's seed, not the policy, so two runs' files pair kick by
kick (`python benchmarks/compare_walk.py A_pushes.json B_pushes.json`).
"""

import sys
from pathlib import Path

import jax
import numpy as np

from mjxwalk import bench, results
from mjxwalk.training import evaluate, kicks
from mjxwalk.training.run import load_run

FALL_WINDOW_S = 2.0


def _record(s):
    walk = s.info["walk"]
    return (s.metrics["falls"], s.metrics["pushes"], s.data.qvel[:, 0:2], s.data.xmat[:, 1, :2, 0],
            walk.last_contact, walk.phase)


def pushes_and_falls(config, policy, scenario: str, num_envs: int, seconds: float):
    """Rows of `kicks.KICK_COLUMNS`, one per push of one scenario's first episodes, and
    the scenario's gait clock frequency."""
    env, recorded = evaluate.scenario_rollout(config, policy, scenario, num_envs, seconds, _record)
    (falls, pushes, velocity, heading, contact, phase), alive = jax.device_get(recorded)
    window = int(round(FALL_WINDOW_S / env.dt))
    frequency = env.config.gait_frequency
    rows = []
    for env_i in range(num_envs):
        for t in np.flatnonzero(pushes[1:, env_i] * alive[1:, env_i]) + 1:
            # the push is the jump in root velocity over its control step
            kick = velocity[t, env_i] - velocity[t - 1, env_i]
            forward = heading[t - 1, env_i] / np.linalg.norm(heading[t - 1, env_i])
            left = np.array([-forward[1], forward[0]])
            angle = abs(np.degrees(np.arctan2(kick @ left, kick @ forward)))
            fell = bool(np.sum(falls[t:t + window, env_i] * alive[t:t + window, env_i]) > 0)
            rows.append((env_i, int(t), float(np.linalg.norm(kick)), float(angle), fell,
                         bool(kick @ left > 0), kicks.support(contact[t, env_i]),
                         kicks.clock_touchdown_s(float(phase[t, env_i]), frequency)))
    return rows, frequency


def main(run_dir: Path, prefix: Path, num_envs: int = 128, seconds: float = 20.0) -> None:
    config, _, make_policy, step, state = load_run(run_dir)
    policy = evaluate.policy_fn(make_policy, state, deterministic=True)
    out = {"run": str(run_dir), "checkpoint_env_steps": step, "episodes": num_envs,
           "seconds": seconds, "pushes": evaluate.ACCEPTANCE_PUSHES,
           "fall_window_s": FALL_WINDOW_S, "kick_columns": kicks.KICK_COLUMNS,
           "scenarios": {name: kicks.summarize(*pushes_and_falls(config, policy, name, num_envs,
                                                                  seconds))
                         for name in ("forward_0.3", "stand")},
           "versions": bench.versions()}
    results.write(f"{prefix}_pushes.json", out)
    print(results.dumps({name: {k: v for k, v in s.items() if k != "kicks"}
                         for name, s in out["scenarios"].items()}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"))
