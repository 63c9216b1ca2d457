"""Which pushes knock a trained walk policy over: each push of the walk report's forward and
stand scenarios, by size, by direction against the torso's heading, by the feet on the
ground, by the gait clock's time to its next touch-down, and how soon and where the first
step after it landed.

    python benchmarks/push_recovery.py runs/<name> [benchmarks/results/<prefix>] [episodes]
        [--set FIELD=JSON ...]

Writes <prefix>_pushes.json. A push counts as a fall when the episode ends in a fall within
`FALL_WINDOW_S` after it (the report's falls come 0.5-1 s after a push). Each scenario also
lists its kicks one by one (`mjxwalk.training.kicks.KICK_COLUMNS`): kick times and
world-frame kicks follow the episode's seed, not the policy, so two runs' files pair kick by
kick (`python benchmarks/compare_walk.py A_pushes.json B_pushes.json`).
"""

from pathlib import Path

import jax
import numpy as np

from mjxwalk import bench, results
from mjxwalk.envs.walk import catch_targets
from mjxwalk.training import evaluate, kicks
from mjxwalk.training.run import load_run

import _cli

FALL_WINDOW_S = 2.0


def _recorder(env):
    torso, feet = env.index.torso_body, list(env.index.feet)

    def record(s):
        walk = s.info["walk"]
        return (s.metrics["falls"], s.metrics["pushes"], s.data.qvel[:, 0:2],
                s.data.xmat[:, torso], walk.last_contact, walk.phase,
                s.data.subtree_com[:, torso], s.data.xpos[:, feet, :2], s.metrics["gait_frequency"],
                s.metrics["gait_phase_offset"])

    return record


def pushes_and_falls(config, env, policy, scenario: str, num_envs: int, seconds: float):
    """Rows of `kicks.KICK_COLUMNS`, one per push of one scenario's first episodes, and
    the scenario's gait clock frequency. `env` is the run's (for its body indices and catch
    target constants)."""
    env, recorded = evaluate.scenario_rollout(config, policy, scenario, num_envs, seconds,
                                              _recorder(env))
    (falls, pushes, velocity, torso_rot, contact, phase, com, feet_xy, clock_hz, shift), alive = \
        jax.tree.map(np.asarray, jax.device_get(recorded))
    heading = torso_rot[..., :2, 0]
    window = int(round(FALL_WINDOW_S / env.dt))
    clock_window = int(round(kicks.CLOCK_AFTER_S / env.dt))
    frequency = env.config.gait_frequency
    rows = []
    for env_i in range(num_envs):
        live = int(np.sum(alive[:, env_i]))
        for t in np.flatnonzero(pushes[1:, env_i] * alive[1:, env_i]) + 1:
            # the push is the jump in root velocity over its control step
            kick = velocity[t, env_i] - velocity[t - 1, env_i]
            forward = heading[t - 1, env_i] / np.linalg.norm(heading[t - 1, env_i])
            left = np.array([-forward[1], forward[0]])
            angle = abs(np.degrees(np.arctan2(kick @ left, kick @ forward)))
            fell = bool(np.sum(falls[t:t + window, env_i] * alive[t:t + window, env_i]) > 0)
            step = kicks.first_touchdown(contact[:, env_i], t + 1, min(t + window, live))
            first_step_s = miss = None
            if step is not None:
                u, foot = step
                target = np.asarray(catch_targets(com[u, env_i], velocity[u, env_i],
                                                  torso_rot[u, env_i], env.stance_offset,
                                                  env.com_time_constant))[foot]
                first_step_s = float((u - t) * env.dt)
                miss = float(np.linalg.norm(feet_xy[u, env_i, foot] - target))
            after = slice(t + 1, min(t + 1 + clock_window, live))
            rows.append((env_i, int(t), float(np.linalg.norm(kick)), float(angle), fell,
                         bool(kick @ left > 0), kicks.support(contact[t, env_i]),
                         # on the clock the policy sees: the fixed one, shifted by its action
                         kicks.clock_touchdown_s(float(phase[t, env_i] + shift[t, env_i]),
                                                 frequency),
                         first_step_s, miss,
                         float(np.mean(clock_hz[after, env_i])) if t + 1 < live else None,
                         float(np.mean(shift[after, env_i])) if t + 1 < live else None))
    return rows, frequency


def main(run_dir: Path, prefix: Path, num_envs: int = 128, seconds: float = 20.0,
         overrides: tuple = ()) -> None:
    config, env, make_policy, step, state = load_run(run_dir, overrides)
    policy = evaluate.policy_fn(make_policy, state, deterministic=True)
    out = {"run": str(run_dir), "checkpoint_env_steps": step,
           **_cli.overrides_record(overrides), "episodes": num_envs,
           "seconds": seconds, "pushes": evaluate.ACCEPTANCE_PUSHES,
           "fall_window_s": FALL_WINDOW_S, "kick_columns": kicks.KICK_COLUMNS,
           "scenarios": {name: kicks.summarize(*pushes_and_falls(config, env, policy, name,
                                                                  num_envs, seconds))
                         for name in ("forward_0.3", "stand")},
           "versions": bench.versions()}
    results.write(f"{prefix}_pushes.json", out)
    print(results.dumps({name: {k: v for k, v in s.items() if k != "kicks"}
                         for name, s in out["scenarios"].items()}))


if __name__ == "__main__":
    args, overrides = _cli.parse(_cli.parser(__doc__, 128))
    main(args.run_dir, args.prefix, args.episodes, overrides=overrides)
