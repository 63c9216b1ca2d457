"""Which episodes a trained walk policy falls in without any push: the forward and stand
scenarios with pushes off, their falls split by this episode's action delay, IMU delay and
floor slope (gravity tilt), everything else randomized as in training.

    python benchmarks/fall_causes.py runs/<name> [benchmarks/results/<prefix>] [episodes]
        [--set FIELD=JSON ...]

Writes <prefix>_fall_causes.json. Each scenario lists the episodes that fell; episode i has
the same seed in every run's file, so `python benchmarks/compare_walk.py A_fall_causes.json
B_fall_causes.json` pairs two runs episode by episode.
"""

from pathlib import Path

import jax
import numpy as np

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.run import load_run
from mjxwalk.wrappers import BatchedEnv, model_keys

import _cli

TILT_BINS_DEG = ((0.0, 1.0), (1.0, 2.0), (2.0, 3.0))
"""Gravity tilt bins, degrees (the default range is 0-0.05 rad, 2.9 degrees)."""


def _record(s):
    p = s.info["walk"].params
    return s.metrics["falls"], p.action_delay, p.action_delay_substeps, p.imu_delay


def episodes(config, policy, scenario: str, num_envs: int, seconds: float) -> dict:
    """Per first episode: fell, when (s, NaN if not), action delay (control periods), IMU
    delay, tilt (degrees)."""
    env = evaluate.env_with_fixed_commands(config, pushes={"enabled": False},
                                           **evaluate.SCENARIOS[scenario])
    steps = int(round(seconds / env.dt))
    batched = BatchedEnv(env, num_envs, episode_length=steps + 1)
    models = model_keys(11, num_envs)
    recorded = evaluate.first_episode(batched, policy, jax.random.PRNGKey(0), steps, _record,
                                      models)
    (falls, delay, substeps, imu_delay), alive = jax.device_get(recorded)
    gravity = batched.draw_models(models).get("gravity", env.mjx_model.opt.gravity)
    gravity = np.asarray(gravity).reshape(-1, 3)
    gravity = np.broadcast_to(gravity, (num_envs, 3))
    falls = falls * alive
    fell = np.sum(falls, axis=0) > 0
    return {"fell": fell,
            "fall_time_s": np.where(fell, (np.argmax(falls, axis=0) + 1) * env.dt, np.nan),
            "action_delay": delay[0] + substeps[0] / env.n_substeps,
            "imu_delay": imu_delay[0],
            "tilt_deg": np.degrees(np.arccos(-gravity[:, 2] / np.linalg.norm(gravity, axis=1)))}


def _share(fell, mask) -> dict:
    return {"episodes": int(mask.sum()),
            "fall_share": float(fell[mask].mean()) if mask.any() else None}


STARTUP_S = 3.0
"""Falls this soon after reset count as falls while starting to walk from rest."""


def summarize(ep: dict) -> dict:
    fell = ep["fell"]
    times = ep["fall_time_s"][fell]
    return {
        "all": _share(fell, np.ones_like(fell)),
        # episode i meets the same robot and randomization in every run's file
        "episodes_fallen": [int(i) for i in np.flatnonzero(fell)],
        "fall_time_s": {"median": float(np.median(times)) if times.size else None,
                        f"share_of_falls_in_first_{STARTUP_S:g}s":
                            float(np.mean(times < STARTUP_S)) if times.size else None},
        "by_action_delay_periods": {f"{v:g}": _share(fell, np.isclose(ep["action_delay"], v))
                                    for v in np.unique(ep["action_delay"])},
        "by_imu_delay_steps": {f"{v:g}": _share(fell, ep["imu_delay"] == v)
                               for v in np.unique(ep["imu_delay"])},
        "by_tilt_deg": {f"{lo:g}-{hi:g}": _share(fell, (ep["tilt_deg"] >= lo) & (ep["tilt_deg"] < hi))
                        for lo, hi in TILT_BINS_DEG},
    }


def main(run_dir: Path, prefix: Path, num_envs: int = 256, seconds: float = 10.0,
         overrides: tuple = ()) -> None:
    config, _, make_policy, step, state = load_run(run_dir, overrides)
    policy = evaluate.policy_fn(make_policy, state, deterministic=True)
    out = {"run": str(run_dir), "checkpoint_env_steps": step,
           **_cli.overrides_record(overrides), "episodes": num_envs,
           "seconds": seconds, "pushes": "off",
           "scenarios": {name: summarize(episodes(config, policy, name, num_envs, seconds))
                         for name in ("forward_0.3", "stand")},
           "versions": bench.versions()}
    results.write(f"{prefix}_fall_causes.json", out)
    print(results.dumps(out["scenarios"]))


if __name__ == "__main__":
    args, overrides = _cli.parse(_cli.parser(__doc__, 256))
    main(args.run_dir, args.prefix, args.episodes, overrides=overrides)
