"""Throughput measurements behind `mjxwalk-bench` and `benchmarks/`.

Compile time is measured apart from run time; after one warm-up call, `repeats` timed calls
with `block_until_ready`, and the median is reported. Raw `mjx.step` on the same compiled
scene and MuJoCo C (`mujoco.rollout`, all cores) run side by side in the same process, so
ratios hold on a noisy machine.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import statistics
import time
from typing import Any, Callable

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

from mjxwalk.compat import mjx


@dataclasses.dataclass(frozen=True)
class Timing:
    """One measured configuration."""

    what: str
    """'mjx_step' (raw physics), 'env_step' (the walk env) or 'mujoco_c' (rollout)."""
    batch: int
    """Parallel environments."""
    substeps: int
    """Physics steps per control step."""
    steps: int
    """Control steps per timed call (physics steps for mjx_step and mujoco_c: x substeps)."""
    compile_s: float
    """First call (compile + run), s."""
    median_s: float
    """Median timed call, s."""
    physics_steps_per_s: float
    """Physics steps per second over the batch."""
    env_steps_per_s: float
    """Control steps per second over the batch (physics / substeps)."""
    sim_seconds_per_s: float
    """Simulated seconds per wall-clock second over the batch."""


def _time(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    start = time.perf_counter()
    jax.block_until_ready(fn())
    compile_s = time.perf_counter() - start
    jax.block_until_ready(fn())  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return compile_s, statistics.median(times)


def _timing(what, batch, substeps, steps, compile_s, median_s, timestep) -> Timing:
    physics = batch * steps * substeps / median_s
    return Timing(what, batch, substeps, steps, compile_s, median_s, physics, physics / substeps,
                  physics * timestep)


def time_env(env, batch: int, steps: int, repeats: int = 3, seed: int = 0) -> Timing:
    """The env's own step (physics substeps + sensors + observations + rewards).

    Zero actions hold the default pose, as the raw-physics timing does: MJX's solver stops
    early when fewer contacts are active, so robots that fell would flatter the env.
    """
    reset = jax.jit(jax.vmap(env.reset))
    step = jax.vmap(env.step)
    state = reset(jax.random.split(jax.random.PRNGKey(seed), batch))
    actions = jnp.zeros((steps, batch, env.action_size))

    @jax.jit
    def rollout(state):
        return jax.lax.scan(lambda s, a: (step(s, a), None), state, actions)[0]

    compile_s, median_s = _time(lambda: rollout(state), repeats)
    return _timing("env_step", batch, env.n_substeps, steps, compile_s, median_s,
                   env.mj_model.opt.timestep)


def time_batched_env(env, batch: int, steps: int, repeats: int = 3, seed: int = 0,
                     what: str = "batched_env") -> Timing:
    """The training-side env: `BatchedEnv` (per-env models when randomized, episodes,
    auto-reset), zero actions as in the other timings."""
    from mjxwalk.wrappers import BatchedEnv

    wrapped = BatchedEnv(env, batch)
    state = jax.jit(wrapped.reset)(jax.random.split(jax.random.PRNGKey(seed), batch))
    actions = jnp.zeros((steps, batch, env.action_size))

    @jax.jit
    def rollout(state):
        return jax.lax.scan(lambda s, a: (wrapped.step(s, a), None), state, actions)[0]

    compile_s, median_s = _time(lambda: rollout(state), repeats)
    return _timing(what, batch, env.n_substeps, steps, compile_s, median_s,
                   env.mj_model.opt.timestep)


def randomization_sweep(robot, terrain: str, batches: list[int], steps: int, repeats: int = 3,
                        log: Callable[[str], None] = print) -> list[Timing]:
    """The batched walk env with every randomization off, then all on, at each batch size.

    Both run with solver tolerance 0, i.e. a fixed number of solver iterations: MJX stops
    early once every env in the batch has converged, which depends on how many robots are
    standing, and pushes topple some; fixed work compares the cost of the randomization
    itself. (With the default tolerance 'on' measured faster than 'off'.)
    """
    import mjxwalk
    from mjxwalk.config import WalkConfig, override, without_randomization

    on = override(WalkConfig(), terrain=terrain)
    envs = {"randomization_off": mjxwalk.make_env("walk", robot, config=without_randomization(on)),
            "randomization_on": mjxwalk.make_env("walk", robot, config=on)}
    for env in envs.values():
        env.mjx_model = env.mjx_model.replace(
            opt=env.mjx_model.opt.replace(tolerance=0.0, ls_tolerance=0.0))
    results = []
    for batch in batches:
        for what, env in envs.items():
            t = time_batched_env(env, batch, steps, repeats, what=what)
            results.append(t)
            log(f"{what:17s} batch {batch:5d}: {t.env_steps_per_s:9.0f} env steps/s, "
                f"compile {t.compile_s:5.1f} s")
    return results


def training_config(robot, batch: int, iterations: int = 4):
    """The cpu preset's learner (passes, unroll, network sizes) at `batch` envs, for
    `iterations` PPO iterations: what `training_sweep` times."""
    import dataclasses

    from mjxwalk.training.config import cpu

    config = dataclasses.replace(cpu(), robot=str(robot.spec_path), num_envs=batch,
                                 batch_size=max(1, batch // 4), num_minibatches=8,
                                 checkpoint_every_s=1e9)
    return dataclasses.replace(config, num_timesteps=iterations * config.env_steps_per_iteration)


LEARNER_FIELDS = ("unroll_length", "batch_size", "num_minibatches", "num_updates_per_batch",
                  "policy_hidden", "value_hidden")
"""The TrainConfig fields that set a training iteration's cost, recorded with its timing."""


def training_sweep(robot, batches: list[int], iterations: int = 4,
                   log: Callable[[str], None] = print) -> list[Timing]:
    """PPO training throughput (collection + updates) against the batched env alone, with
    the cpu preset's learner settings at each batch size, without and with symmetry
    augmentation (which doubles each minibatch)."""
    import dataclasses
    import tempfile

    import mjxwalk
    from mjxwalk.training.monitor import read_metrics

    results = []
    for batch in batches:
        config = training_config(robot, batch, iterations)
        env = mjxwalk.make_env("walk", robot)
        t = time_batched_env(env, batch, config.unroll_length, what="batched_env")
        results.append(t)
        for what, symmetric in (("training", False), ("training_symmetry", True)):
            run = dataclasses.replace(config, symmetry_augmentation=symmetric)
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                mjxwalk.train(run, out=tmp, show_progress=False)
                rows = read_metrics(tmp)
                total = time.perf_counter() - start
            rate = statistics.median(r["env_steps_per_s"] for r in rows[1:])  # first has compile
            physics = rate * env.n_substeps
            results.append(Timing(what, batch, env.n_substeps, config.env_steps_per_iteration,
                                  rows[0].get("compile_s", total),
                                  config.env_steps_per_iteration / rate, physics, rate,
                                  rate * env.dt))
            log(f"batch {batch:5d}: env alone {t.env_steps_per_s:8.0f} env steps/s, {what} "
                f"{rate:8.0f} env steps/s ({100 * rate / t.env_steps_per_s:.0f}%)")
    return results


def time_mjx_step(env, batch: int, steps: int, repeats: int = 3, seed: int = 0) -> Timing:
    """Raw `mjx.step` on the env's own compiled scene, same batch and start states."""
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(seed), batch))
    data = state.data
    model = env.mjx_model
    n = steps * env.n_substeps

    @jax.jit
    def rollout(data):
        return jax.lax.scan(lambda d, _: (jax.vmap(mjx.step, in_axes=(None, 0))(model, d), None),
                            data, None, length=n)[0]

    compile_s, median_s = _time(lambda: rollout(data), repeats)
    return _timing("mjx_step", batch, env.n_substeps, steps, compile_s, median_s,
                   env.mj_model.opt.timestep)


def time_mujoco_c(env, batch: int, steps: int, repeats: int = 3, threads: int | None = None
                  ) -> Timing:
    """MuJoCo C through `mujoco.rollout` on all cores, same scene and start states."""
    from mujoco import rollout

    m = env.mj_model
    threads = threads or os.cpu_count() or 1
    n = steps * env.n_substeps
    d = mujoco.MjData(m)
    d.qpos[:] = np.asarray(env._default_qpos)
    d.ctrl[env.index.actuator] = np.asarray(env._default_pose)
    mujoco.mj_forward(m, d)
    state = np.zeros(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(m, d, state, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    initial = np.tile(state, (batch, 1))
    control = np.tile(d.ctrl, (batch, n, 1))
    datas = [mujoco.MjData(m) for _ in range(threads)]
    with rollout.Rollout(nthread=threads) as r:
        compile_s, median_s = _time(
            lambda: r.rollout([m] * batch, datas, initial, control)[0], repeats)
    return _timing("mujoco_c", batch, env.n_substeps, steps, compile_s, median_s, m.opt.timestep)


def versions() -> dict[str, str]:
    """Versions and hardware that a benchmark result depends on."""
    import importlib.metadata as md

    out = {"python": platform.python_version(), "machine": platform.machine(),
           "processor": platform.processor() or platform.machine(), "cpu_count": str(os.cpu_count()),
           "jax_backend": jax.default_backend(),
           "devices": ", ".join(str(d) for d in jax.devices())}
    for pkg in ("mjxwalk", "jax", "jaxlib", "mujoco", "mujoco-mjx", "brax", "numpy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def sweep(env, batches: list[int], steps: int, repeats: int = 3, mujoco_c: bool = True,
          log: Callable[[str], None] = print) -> list[Timing]:
    """Env step, raw mjx.step and (optionally) MuJoCo C at each batch size."""
    results = []
    for batch in batches:
        timers = [time_env, time_mjx_step] + ([time_mujoco_c] if mujoco_c else [])
        for timer in timers:
            t = timer(env, batch, steps, repeats)
            results.append(t)
            log(f"{t.what:9s} batch {batch:5d}: {t.physics_steps_per_s:10.0f} physics steps/s, "
                f"{t.env_steps_per_s:9.0f} env steps/s, compile {t.compile_s:5.1f} s")
    return results


def env_overhead(results: list[Timing]) -> dict[int, float]:
    """Per batch: env step time over raw physics time for the same substeps, minus one."""
    by = {(t.what, t.batch): t for t in results}
    return {b: by["mjx_step", b].physics_steps_per_s / by["env_step", b].physics_steps_per_s - 1.0
            for (what, b) in by if what == "env_step" and ("mjx_step", b) in by}


def plot(results: list[Timing], path, title: str) -> None:
    """Physics steps/s against batch size, one line per measurement."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for what, label in (("mjx_step", "raw mjx.step"), ("env_step", "walk env (incl. physics)"),
                        ("mujoco_c", "MuJoCo C rollout, all cores"),
                        ("randomization_off", "batched walk env, randomization off"),
                        ("randomization_on", "batched walk env, all randomization on"),
                        ("batched_env", "batched walk env alone"),
                        ("training", "PPO training (collect + update)"),
                        ("training_symmetry", "PPO training, symmetry augmentation")):
        rows = sorted((t.batch, t.physics_steps_per_s) for t in results if t.what == what)
        if rows:
            ax.plot(*zip(*rows), marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("parallel environments")
    ax.set_ylabel("physics steps / s")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def as_rows(results: list[Timing]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(t) for t in results]

