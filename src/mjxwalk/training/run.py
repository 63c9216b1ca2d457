"""`mjxwalk.train(config)`: a run directory, the PPO loop on every device, checkpoints,
metrics, resume, a wall-clock budget and NaN safety."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from mjxwalk import compat
from mjxwalk.errors import ConfigError, MjxwalkError
from mjxwalk.training import checkpoint, monitor, ppo, stop
from mjxwalk.training.config import TrainConfig


class TrainingDiverged(MjxwalkError):
    """The loss or the parameters became NaN/inf; the last good checkpoint was kept."""


@dataclasses.dataclass
class TrainResult:
    """What a finished (or budget- or signal-stopped) run produced."""

    run_dir: Path
    """runs/<name>/ with config, contract, checkpoints, metrics, report."""
    state: ppo.TrainingState
    """Final training state (one copy, on the host)."""
    env_steps: int
    """Environment steps trained in total (including before a resume)."""
    metrics: dict[str, float]
    """Last recorded metrics."""
    stopped_by: str
    """'steps' (num_timesteps reached), 'budget' (--minutes ran out), or the signal that
    stopped it after an iteration: 'SIGINT' (Ctrl-C), 'SIGTERM', or 'signal' on a process of
    a multi-host run that did not get it itself."""
    make_policy: Any
    """make_policy((normalizer, policy_params, value_params), deterministic) from brax."""


def env_keys(seed: int, process_index: int, local_devices: int, envs_per_device: int,
             start_steps: int) -> tuple[jax.Array, jax.Array]:
    """The reset keys and model keys of one host's envs, each shaped (local_devices,
    envs_per_device, key): fresh episodes at every start or resume, and a robot of its own
    for every env of every device and host, the same ones at a resume. On one device of one
    host the robots are `model_keys(seed, num_envs)`."""
    from mjxwalk.wrappers import MODEL_STREAM

    n = local_devices * envs_per_device
    key_env = jax.random.fold_in(jax.random.PRNGKey(seed + 1), start_steps)
    reset_keys = jax.random.split(jax.random.fold_in(key_env, process_index), n)
    root = jax.random.PRNGKey(seed)
    if process_index:  # other hosts draw from a stream of their own, apart from host 0's
        root = jax.random.fold_in(jax.random.fold_in(root, MODEL_STREAM), process_index)
    models = jax.random.split(root, n)
    return (reset_keys.reshape(local_devices, envs_per_device, -1),
            models.reshape(local_devices, envs_per_device, -1))


def _run_dir(out: Path | None, name: str | None, config: TrainConfig) -> Path:
    if out is not None:
        return Path(out)
    name = name or f"{config.task}-{config.robot}-{time.strftime('%Y%m%d-%H%M%S')}"
    return Path("runs") / name


def _merged(old: Any, new: Any) -> Any:
    """`new` over `old`, dicts merged key by key (a later --set of one reward keeps the others)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **{k: _merged(old.get(k), v) for k, v in new.items()}}
    return new


def build_env(config: TrainConfig):
    import mjxwalk

    overrides: dict[str, Any] = {}
    for field, value in config.env_overrides:
        overrides[field] = _merged(overrides.get(field), value)
    return mjxwalk.make_env(config.task, config.robot, terrain=config.terrain,
                            episode_length=config.episode_length, **overrides)


def _config_dict(config: TrainConfig, env) -> dict:
    return {"train": dataclasses.asdict(config), "env": dataclasses.asdict(env.config),
            "robot": str(env.robot.spec_path), "jax": jax.__version__,
            "devices": jax.device_count(), "processes": jax.process_count()}


def train(config: TrainConfig, out: str | Path | None = None, name: str | None = None,
          resume: bool = False, show_progress: bool = True) -> TrainResult:
    """Train `config` and return the result; `resume=True` continues the run in `out`.

    A resume restores the training state and process 0's envs mid-episode (every env, in a
    one-process run), so the run continues exactly where its last checkpoint left it.
    In the main thread, a first SIGINT (Ctrl-C, a notebook's interrupt) or SIGTERM ends the
    run after its current iteration, checkpointed, with `stopped_by` naming the signal; a
    second one acts at once (`mjxwalk.training.stop`).
    When it returns or raises, it empties JAX's in-memory compilation caches
    (`jax.clear_caches()`, see below): the caller's own jitted functions compile again,
    from the persistent cache where it holds them.
    """
    try:
        return _train(config, out, name, resume, show_progress)
    finally:
        # XLA:CPU maps memory for every compiled kernel and JAX's caches keep each call's
        # programs alive: about 9,500 maps per call, so the sixth train() in one process
        # (a notebook, the test suite) aborted at Linux's default vm.max_map_count of 65,530
        # ("LLVM ERROR: Unable to allocate section memory").
        jax.clear_caches()


def _train(config: TrainConfig, out: str | Path | None, name: str | None, resume: bool,
           show_progress: bool) -> TrainResult:
    n_devices, local = jax.device_count(), jax.local_devices()
    config.validate(device_count=n_devices)
    compat.enable_compilation_cache()
    run_dir = _run_dir(out, name, config)
    if resume and not (run_dir / "checkpoints").is_dir():
        raise checkpoint.CheckpointError(f"--resume: no checkpoints in {run_dir}")
    saved = [] if resume else checkpoint.saved_steps(run_dir / "checkpoints")
    if not resume and not saved and (run_dir / "policy_params.msgpack").exists():
        raise checkpoint.CheckpointError(
            f"{run_dir} holds a trained policy kept without its checkpoints (a shipped one): "
            "a run there would overwrite it; train into another --out")
    # processes start seconds to minutes apart (imports, a slow host); gloo gives up on a
    # first collective reached more than 30 s apart, so they meet in the key-value store
    compat.host_barrier("started")
    # orbax saves no step at or below the latest one it finds, so a fresh run here would
    # train without ever checkpointing and leave the old run's checkpoints as its own
    if _all_processes_agree(bool(saved)):
        raise checkpoint.CheckpointError(
            f"{run_dir} already holds a run with checkpoints up to "
            f"{max(saved, default=0):,} env steps: continue it with --resume, or train into "
            "another --out (or remove that folder to start it over)")
    env = build_env(config)
    if config.symmetry_augmentation:
        _check_symmetric(env)
    run_dir.mkdir(parents=True, exist_ok=True)
    primary = jax.process_index() == 0

    from mjxwalk.wrappers import BatchedEnv

    envs_per_device = config.num_envs // n_devices
    batched = BatchedEnv(env, envs_per_device, episode_length=config.episode_length)
    networks = ppo.make_networks(config, env)
    state = ppo.init_state(config, networks, env.observation_size, jax.random.PRNGKey(config.seed))

    saved_path = run_dir / "config.json"
    if resume and saved_path.exists():
        saved = saved_config(run_dir)
        for key in ("policy_hidden", "value_hidden", "estimator_targets", "estimator_hidden",
                    "task", "robot"):
            if getattr(saved, key) != getattr(config, key):
                raise checkpoint.CheckpointError(
                    f"--resume with {key} {getattr(config, key)!r}, but the run in {run_dir} "
                    f"was trained with {getattr(saved, key)!r}")
    if primary:
        # atomic: other hosts of a resumed run read it while process 0 writes it
        tmp = saved_path.with_name(saved_path.name + ".tmp")
        tmp.write_text(json.dumps(_config_dict(config, env), indent=1, default=str))
        os.replace(tmp, saved_path)
        (run_dir / "contract.json").write_text(env.contract.to_json())
    mgr = checkpoint.manager(run_dir / "checkpoints", config.keep_checkpoints) if primary else None
    start_steps = 0
    if resume:
        if primary:
            start_steps, state = checkpoint.restore(mgr, state)
        if jax.process_count() > 1:  # the other hosts take process 0's copy
            from jax.experimental import multihost_utils

            compat.host_barrier("restored")
            start_steps, state = multihost_utils.broadcast_one_to_all((start_steps, state))
            start_steps = int(start_steps)

    iteration = ppo.make_iteration(config, batched, networks, envs_per_device, ppo.AXIS)
    p_iteration = jax.pmap(iteration, axis_name=ppo.AXIS, donate_argnums=(0, 1))
    schedule = compat.replicate(ppo.schedule(config), local)
    p_reset = jax.pmap(batched.reset)
    env_state = p_reset(*(compat.shard(k, local) for k in env_keys(
        config.seed, jax.process_index(), len(local), envs_per_device, start_steps)))
    if resume:
        # process 0 checkpoints its own envs; other hosts' envs start fresh episodes
        saved_envs, why_not = checkpoint.restore_envs(mgr, start_steps, env_state) if primary \
            else (None, f"process {jax.process_index()}'s envs are not checkpointed")
        if saved_envs is None:
            warnings.warn(f"resuming with fresh episodes: {why_not}", stacklevel=3)
        else:  # laid out as the fresh reset, in buffers XLA owns (the step donates them)
            env_state = compat.owned_copy(jax.tree.map(
                lambda fresh, saved: jax.device_put(saved, fresh.sharding), env_state, saved_envs))
    # every device starts from the same training state; the rng differs per device so
    # their minibatch shuffles differ. The first device keeps the state's own key: a
    # checkpoint holds that device's key, so a resumed run continues its stream exactly
    replicated = compat.replicate(state, local)
    device_rngs = jax.vmap(
        lambda i: jnp.where(i == 0, state.rng, jax.random.fold_in(state.rng, i)))(
        jnp.arange(len(local)) + jax.process_index() * len(local))
    replicated = replicated.replace(rng=compat.shard(device_rngs, local))
    replicated, env_state = compat.as_pmap_outputs((replicated, env_state), ppo.AXIS)

    if show_progress and primary:
        print("compiling the training step (the persistent cache makes later runs quicker)...",
              flush=True)
    started = time.perf_counter()  # the budget counts compilation too
    if jax.process_count() > 1:
        # compile once ahead (filling the compilation cache), then meet: gloo drops a
        # collective whose processes arrive more than 30 s apart, and compile times differ
        p_iteration.lower(replicated, env_state, schedule).compile()
        compat.host_barrier("compiled")
    compile_s: float | None = None

    # wall-clock time trained before this leg, so metrics and summary count every leg
    wall_before = 0.0
    if resume and primary:
        wall_before = checkpoint.trained_wall_s(mgr, start_steps) or 0.0
    trained_s = lambda: wall_before + time.perf_counter() - started
    # process 0 alone writes metrics: hosts often share the run directory
    mon = monitor.Monitor(run_dir, config.num_timesteps, env.dt, show=show_progress,
                          start_steps=start_steps, start_wall_s=wall_before) if primary else None
    steps, last_save, metrics, stopped_by = start_steps, time.perf_counter(), {}, "steps"
    good = jax.tree.map(lambda x: x[0], replicated)
    it = 0
    # a signal ends the run as the budget does, after the iteration it arrives in; the final
    # checkpoint is written inside the block too, so a first signal cannot cut it short
    with stop.stop_on_signals() as stop_request:
        try:
            while steps < config.num_timesteps:
                replicated, env_state, m = p_iteration(replicated, env_state, schedule)
                m = jax.tree.map(lambda x: float(np.asarray(x)[0]), jax.device_get(m))
                if compile_s is None:  # the first iteration is mostly compilation
                    compile_s = time.perf_counter() - started
                one = jax.tree.map(lambda x: x[0], replicated)
                if not (math.isfinite(m["loss/total_loss"]) and bool(ppo.finite(one.params))):
                    raise TrainingDiverged(
                        f"training diverged at {steps:,} env steps (loss "
                        f"{m['loss/total_loss']}); the last good checkpoint is kept in "
                        f"{run_dir / 'checkpoints'}. Lower the learning rate or check the env "
                        "for exploding rewards")
                good = one
                steps = int(one.env_steps)
                it += 1
                metrics = m
                over_budget, signalled = _stop_flags(
                    config.minutes is not None
                    and time.perf_counter() - started > 60 * config.minutes,
                    bool(stop_request))
                due = it % config.log_every == 0 or steps >= config.num_timesteps \
                    or over_budget or signalled
                if mon is not None and due:
                    mon.record(steps, m, compile_s if it == 1 else None)
                if over_budget or signalled:
                    # on a process that got no signal itself, another process's did
                    stopped_by = "budget" if over_budget else stop_request.signal_name or "signal"
                    break
                if primary and time.perf_counter() - last_save > config.checkpoint_every_s:
                    checkpoint.save(mgr, steps, good, env_state, trained_s())
                    last_save = time.perf_counter()
        finally:
            if mon is not None:
                mon.close()
        if primary:
            checkpoint.save(mgr, steps, good, env_state, trained_s())
            _write_policy(run_dir, good)
            # wall_s: every leg of the run (resumes included); leg_wall_s: this call's
            summary = {"env_steps": steps, "stopped_by": stopped_by,
                       "wall_s": round(trained_s(), 1),
                       "leg_wall_s": round(time.perf_counter() - started, 1),
                       "compile_s": round(compile_s or 0.0, 1), "last_metrics": metrics}
            (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
            try:  # the plot is a convenience: a missing plotting library must not fail the run
                monitor.plot_learning_curve(run_dir, f"{config.task} / {env.robot.name}, "
                                                     f"{config.num_envs} envs")
            except Exception as e:  # noqa: BLE001
                warnings.warn(f"report.png not drawn: {type(e).__name__}: {e}", stacklevel=2)
    from brax.training.agents.ppo import networks as ppo_networks

    return TrainResult(run_dir=run_dir, state=good, env_steps=steps, metrics=metrics,
                       stopped_by=stopped_by,
                       make_policy=ppo_networks.make_inference_fn(networks))


def saved_config(run_dir: str | Path) -> TrainConfig:
    """The TrainConfig a run directory was last trained with (its config.json)."""
    path = Path(run_dir) / "config.json"
    try:
        saved = json.loads(path.read_text())["train"]
        saved = {k: tuple(v) if isinstance(v, list) and k != "env_overrides" else v
                 for k, v in saved.items()}
        saved["env_overrides"] = tuple((k, v) for k, v in saved["env_overrides"])
        return TrainConfig(**saved)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; is {run_dir} a run directory?") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ConfigError(f"{path}: not a run's config ({type(e).__name__}: {e})") from None


def contract_changes(a, b) -> list[str]:
    """Names of the `PolicyContract` fields in which contracts `a` and `b` differ."""
    if a.hash == b.hash:
        return []
    return [f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)]


def check_contract(run_dir: str | Path, env) -> None:
    """Raise ConfigError if the contract a run last trained with (its contract.json) is not
    `env`'s, the one its config gives now: its robot spec (an action scale, a joint
    range, a gain) or mjxwalk's defaults changed since, and the saved policy would be read
    with another meaning. A run without a contract.json is not checked."""
    from mjxwalk.contract import PolicyContract

    path = Path(run_dir) / "contract.json"
    if not path.exists():
        return
    changed = contract_changes(PolicyContract.from_json(path.read_text()), env.contract)
    if not changed:
        return
    raise ConfigError(f"{path}: the run trained with a policy contract that its config no "
                      f"longer gives ({', '.join(changed)} differ): the robot spec "
                      f"{env.robot.spec_path} or mjxwalk's defaults changed since. Restore them "
                      "to load this run")


def load_run(run_dir: str | Path, env_overrides: tuple = (), at_step: int | None = None):
    """A finished or stopped run's (config, env, make_policy, env_steps, state), rebuilt from
    its config.json and latest checkpoint (or the one written at env step `at_step`, of
    those the run kept), or from its policy_params.msgpack if it kept no checkpoints (a
    shipped policy, `mjxwalk.policy_path`): for evaluation, rendering and export.
    `env_overrides` ((field, value) pairs, as `--set` gives them) are applied after the
    run's own, so a policy is evaluated under other conditions than it trained in; one that
    changes what the policy reads or does (its contract) is refused."""
    run_dir = Path(run_dir)
    trained = saved_config(run_dir)
    config = dataclasses.replace(trained, env_overrides=trained.env_overrides + tuple(env_overrides))
    env = build_env(config)
    own = build_env(trained) if env_overrides else env
    check_contract(run_dir, own)
    if changed := contract_changes(own.contract, env.contract):
        fields = ", ".join(dict.fromkeys(f for f, _ in env_overrides))
        raise ConfigError(f"{run_dir}: the overrides of {fields} change the policy contract "
                          f"({', '.join(changed)} differ), so the trained policy cannot run "
                          "under them; override only fields that leave what the policy reads "
                          "and does unchanged")
    networks = ppo.make_networks(config, env)
    like = ppo.init_state(config, networks, env.observation_size, jax.random.PRNGKey(0))
    if checkpoint.saved_steps(run_dir / "checkpoints"):
        step, state = checkpoint.restore(checkpoint.manager(run_dir / "checkpoints", 3), like,
                                         at_step)
    elif at_step is not None:
        raise checkpoint.CheckpointError(f"{run_dir} kept no checkpoints, so none at step "
                                         f"{at_step}")
    else:
        step, state = _policy_file_state(run_dir, like)
    from brax.training.agents.ppo import networks as ppo_networks

    return config, env, ppo_networks.make_inference_fn(networks), step, state


def _policy_file_state(run_dir: Path, like: ppo.TrainingState) -> tuple[int, ppo.TrainingState]:
    """A run kept without its checkpoints (a shipped policy): `like` with the actor and the
    observation normalizer of its policy_params.msgpack and the step of its summary.json.
    The critic and the optimizer stay `like`'s untrained ones: the state acts, and cannot
    be trained on (`--resume` wants checkpoints)."""
    from flax import serialization

    path, summary = run_dir / "policy_params.msgpack", run_dir / "summary.json"
    for needed in (path, summary):
        if not needed.exists():
            raise checkpoint.CheckpointError(
                f"{run_dir}: no checkpoints and no {needed.name}: nothing to load a policy from")
    template = _policy_tree(like)
    try:
        step = int(json.loads(summary.read_text())["env_steps"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ConfigError(f"{summary}: not a run's summary ({type(e).__name__}: {e})") from None
    data = path.read_bytes()
    try:
        raw = serialization.msgpack_restore(data)
    except Exception as e:  # noqa: BLE001 - msgpack raises many kinds on bad bytes
        raise ConfigError(f"{path}: not a policy file ({type(e).__name__}: {e})") from None
    # flax would drop extra arrays and take any shape in place: compare them first
    have, want = _leaf_shapes(raw), _leaf_shapes(serialization.to_state_dict(template))
    if differ := sorted(k for k in have.keys() | want.keys() if have.get(k) != want.get(k)):
        raise ConfigError(f"{path}: its arrays do not fit the network this run's config builds "
                          f"(they differ at {', '.join(differ[:3])}"
                          f"{', ...' if len(differ) > 3 else ''})")
    saved = jax.tree.map(jnp.asarray, serialization.from_state_dict(template, raw))
    params = like.params.replace(policy=saved["policy"])
    return step, like.replace(params=params, normalizer_params=saved["normalizer"],
                              env_steps=jnp.asarray(step, like.env_steps.dtype))


def _leaf_shapes(tree: Any) -> dict[str, tuple]:
    """Each array's path in `tree` and its shape."""
    return {jax.tree_util.keystr(k): np.shape(x)
            for k, x in jax.tree_util.tree_leaves_with_path(tree)}


def _check_symmetric(env) -> None:
    """Symmetry augmentation needs a mirror-symmetric robot: say so before any compile."""
    from mjxwalk.errors import SpecError

    try:
        env.mirror
    except SpecError as e:
        raise SpecError(e.path, f"{e.problem}. symmetry_augmentation needs a left-right "
                        "symmetric robot: train it with --no-symmetry-augmentation") from None


def _every_process(*flags: bool) -> np.ndarray:
    """Every process's `flags`, shaped (processes, len(flags)), the same on each: what one
    process decides alone (its clock, a signal only it got) must not stop it alone, which
    would leave the others waiting in their next collective."""
    if jax.process_count() == 1:
        return np.array([flags], bool)
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(np.array(flags, np.int32))).astype(bool)


def _all_processes_agree(flag: bool) -> bool:
    """Process 0's `flag`, on every process."""
    return bool(_every_process(flag)[0, 0])


def _stop_flags(over_budget: bool, signalled: bool) -> tuple[bool, bool]:
    """(process 0's `over_budget`, whether any process was `signalled`) on every process:
    clocks differ between hosts, and a signal may reach only one of them."""
    flags = _every_process(over_budget, signalled)
    return bool(flags[0, 0]), bool(flags[:, 1].any())


def _write_policy(run_dir: Path, state: ppo.TrainingState) -> None:
    """The policy's parameters and normalizer (the ONNX export replaces this later)."""
    from flax import serialization

    (run_dir / "policy_params.msgpack").write_bytes(
        serialization.to_bytes(jax.device_get(_policy_tree(state))))


def _policy_tree(state: ppo.TrainingState) -> dict:
    """What policy_params.msgpack holds of a training state: the normalizer and the actor."""
    return {"normalizer": state.normalizer_params, "policy": state.params.policy}
