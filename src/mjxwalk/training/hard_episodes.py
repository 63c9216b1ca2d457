"""Which randomized robots walk policies fall with, pooled over several runs' walk reports.

Episode i of a walk report meets the same physics model, servo spread, delays and kick times
in every run's report (fixed seeds), so runs' `episodes_fallen` lists add up to a count per
episode. `episode_draws` redraws what each episode was given, and `relate` sets the two side
by side per randomized quantity. `benchmarks/hard_episodes.py` files the result.
"""

from __future__ import annotations

import numpy as np

from mjxwalk.training.evaluate import REPORT_KEY

PUSHED_FORWARD_DEG = 45.0
"""A kick within this angle of the torso's heading shoves the robot forward (the
`pushed_forward` bin of `benchmarks/push_recovery.py`)."""


def _refuse_overridden(files: dict[str, dict]) -> None:
    """Files evaluated under `--set` met other draws than `episode_draws` gives."""
    if overridden := [name for name, data in files.items() if data.get("evaluation_env_overrides")]:
        raise ValueError(f"{', '.join(overridden)} evaluated under changed env fields (--set), so "
                         "their episodes met other draws than the run's: leave them out")


def falls_per_episode(reports: dict[str, dict], scenario: str) -> np.ndarray:
    """In how many of `reports` (name -> walk-report JSON as a dict) each episode of
    `scenario` fell. Raises ValueError naming the reports that cannot be pooled: different
    episode counts, a scenario or fall list missing, or evaluated under `--set`."""
    _refuse_overridden(reports)
    counts = {name: r["episodes_per_scenario"] for name, r in reports.items()}
    if len(set(counts.values())) != 1:
        raise ValueError(f"the reports evaluate different episode counts: {counts}")
    falls = np.zeros(next(iter(counts.values())), int)
    for name, r in reports.items():
        row = r[REPORT_KEY].get(scenario)
        if row is None or "episodes_fallen" not in row:
            raise ValueError(f"{name} has no list of fallen episodes for {scenario!r} (a report "
                             "from before episodes were listed?)")
        falls[row["episodes_fallen"]] += 1
    return falls


def biggest_kicks(push_files: dict[str, dict], scenario: str, num_envs: int) -> dict[str, np.ndarray]:
    """Per episode of `scenario`, its biggest kick and its biggest forward shove (m/s), over
    the kicks any of `push_files` (name -> push file as a dict) saw; a file stops listing an
    episode's kicks at its fall. Kick times follow the seed, but the sizes and angles a file
    measures (the root's velocity jump, against the torso's heading) also hold the robot's
    own motion, so each kick takes the mean size and the median angle over the files.
    Raises ValueError naming files evaluated under `--set`."""
    _refuse_overridden(push_files)
    seen: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for data in push_files.values():
        col = {name: data["kick_columns"].index(name)
               for name in ("episode", "control_step", "size_m_s", "angle_deg")}
        for row in data["scenarios"][scenario]["kicks"]:
            seen.setdefault((row[col["episode"]], row[col["control_step"]]), []).append(
                (row[col["size_m_s"]], abs(row[col["angle_deg"]])))
    biggest, forward = np.zeros(num_envs), np.zeros(num_envs)
    for (episode, _), measured in seen.items():
        size = float(np.mean([m[0] for m in measured]))
        angle = float(np.median([m[1] for m in measured]))
        biggest[episode] = max(biggest[episode], size)
        if angle < PUSHED_FORWARD_DEG:
            forward[episode] = max(forward[episode], size)
    return {"biggest_kick_m_s": biggest, "biggest_forward_shove_m_s": forward}


def relate(draws: dict[str, np.ndarray], falls: np.ndarray, runs: int) -> dict:
    """Per randomized quantity (one value per episode), sorted by the strength of the link:
    Spearman's rank correlation with the episode's fall count and its p-value, and the share
    of run-episodes that fell among the episodes in the quantity's lowest and highest
    quarter. Quantities that did not vary are left out."""
    from scipy import stats

    out = {}
    for name, x in draws.items():
        x = np.asarray(x, float)
        if np.ptp(x) == 0:
            continue
        rho, p = stats.spearmanr(x, falls)
        lo, hi = np.quantile(x, [0.25, 0.75])
        low, high = x <= lo, x >= hi
        out[name] = {"spearman_rho": float(rho), "p_value": float(p),
                     "fall_share_lowest_quarter": float(falls[low].sum() / (runs * low.sum())),
                     "fall_share_highest_quarter": float(falls[high].sum() / (runs * high.sum())),
                     "quarter_bounds": [float(lo), float(hi)]}
    return dict(sorted(out.items(), key=lambda kv: -abs(kv[1]["spearman_rho"])))


def episode_draws(config, scenario: str, num_envs: int) -> dict[str, np.ndarray]:
    """What each of the first `num_envs` episodes of a walk-report scenario was given (the
    seeds of `evaluate.scenario_rollout`), one number per quantity and episode: the model's
    randomized fields as scalars, and the servo, sensor and delay draws of its reset."""
    import jax

    from mjxwalk.training import evaluate
    from mjxwalk.wrappers import BatchedEnv, model_keys

    env = evaluate.scenario_env(config, scenario)
    batched = BatchedEnv(env, num_envs, episode_length=2)
    keys = jax.random.split(jax.random.PRNGKey(evaluate.REPORT_RESET_SEED), num_envs)
    state = jax.device_get(jax.jit(batched.reset)(keys, model_keys(evaluate.REPORT_MODEL_SEED,
                                                                   num_envs)))
    params = state.info["walk"].params
    (model, _), nominal, index = batched.model_of(state), env.mjx_model, env.index

    def field(name):  # fields left nominal carry no batch axis
        nom = np.asarray(getattr(nominal, name))
        return np.broadcast_to(np.asarray(getattr(model, name)), (num_envs,) + nom.shape), nom

    def mean_scale(name, rows, col=None):  # the mean factor on the nominal value
        batch, nom = field(name)
        batch, nom = batch[:, rows], nom[rows]
        return (batch / nom if col is None else batch[..., col] / nom[..., col]).mean(axis=1)

    torso, feet = index.torso_body, np.concatenate(index.foot_geoms)
    friction, _ = field("geom_friction")
    ipos, nominal_ipos = field("body_ipos")
    mass, _ = field("body_mass")
    gravity = np.broadcast_to(np.asarray(model.opt.gravity).reshape(-1, 3), (num_envs, 3))
    servo = params.servo
    draws = {
        "floor_friction": friction[:, index.floor, 0],
        "foot_friction": friction[:, feet, 0].mean(axis=1),
        "total_mass_kg": mass.sum(axis=1),
        "torso_com_offset_x_m": ipos[:, torso, 0] - nominal_ipos[torso, 0],
        "torso_com_offset_y_abs_m": np.abs(ipos[:, torso, 1] - nominal_ipos[torso, 1]),
        "damping_scale_mean": mean_scale("dof_damping", index.dof_adr),
        "frictionloss_scale_mean": mean_scale("dof_frictionloss", index.dof_adr),
        "kp_scale_mean": mean_scale("actuator_biasprm", index.actuator, 1),
        "torque_limit_scale_mean": mean_scale("actuator_forcerange", index.actuator, 1),
        "gravity_tilt_deg": np.degrees(np.arccos(-gravity[:, 2] / np.linalg.norm(gravity, axis=1))),
        "action_delay_periods": env.sensing.action_latency(params),
        "imu_delay_steps": params.imu_delay,
        "no_load_speed_min_rad_s": np.asarray(servo.no_load_speed).min(axis=1),
        "backlash_mean_rad": np.asarray(servo.backlash).mean(axis=1),
        "joint_offset_abs_max_rad": np.abs(np.asarray(servo.joint_offset)).max(axis=1),
    }
    return {k: np.asarray(v, float) for k, v in draws.items()}
