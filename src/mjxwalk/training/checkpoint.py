"""Orbax checkpoints of the whole training state and the envs' states, written atomically.

Orbax writes each step into a temporary folder and renames it when complete, so a kill at
any moment leaves the previous checkpoints readable; `latest()` only sees finished ones.
Each checkpoint holds up to three items: `state` (parameters, optimizer, normalizer, step
counter, rng), `envs` (process 0's envs mid-episode: physics, commands, delays, gait clocks),
which `train` feeds back on resume so episodes carry on where they were, and `progress` (the
wall-clock seconds trained so far, so a resumed run's clock continues where it stopped).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import numpy as np
import orbax.checkpoint as ocp
from flax import serialization

from mjxwalk.errors import MjxwalkError


class CheckpointError(MjxwalkError):
    """A checkpoint is missing or does not match the run being resumed."""


def saved_steps(directory: Path) -> list[int]:
    """The env steps of the finished checkpoints in `directory` (empty when there is none),
    read from the folder names without opening them; orbax's temporary folders are not
    numbers, so a checkpoint cut off mid-write is not counted."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(int(p.name) for p in directory.iterdir() if p.is_dir() and p.name.isdigit())


def manager(directory: Path, keep: int) -> ocp.CheckpointManager:
    """A manager that only process 0 uses: every process holds the same (replicated)
    training state, so one writer is enough and no cross-host barrier is needed."""
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    options = ocp.CheckpointManagerOptions(
        max_to_keep=keep, create=False, enable_async_checkpointing=False,
        multiprocessing_options=ocp.options.MultiprocessingOptions(primary_host=0,
                                                                   active_processes={0}))
    return ocp.CheckpointManager(directory, options=options)


def _host_tree(state: Any) -> dict:
    """Nested dicts of numpy arrays: orbax refuses process-local jax.Arrays in a multi-host
    run, and some brax leaves (UInt64 counters) turn back into jax.Arrays when rebuilt."""
    return jax.tree.map(np.asarray, serialization.to_state_dict(jax.device_get(state)))


def _episodes(envs: Any) -> Any:
    """Env states without their robots (`info['model']`, see `BatchedEnv`): a checkpoint
    keeps the episodes only. The robots follow from the run's seed, host and randomization
    config, so a resume that changes that config trains on the robots it now describes."""
    info = getattr(envs, "info", None)
    if isinstance(info, dict) and "model" in info:
        return envs.replace(info={k: v for k, v in info.items() if k != "model"})
    return envs


def _env_leaves(envs: Any) -> dict[str, np.ndarray]:
    """The env states as numbered numpy leaves: their structure (mjx.Data, brax State, the
    task's info) is rebuilt from a fresh reset of the same config on restore."""
    leaves = [np.asarray(x) for x in jax.tree.leaves(jax.device_get(envs))]
    # empty arrays (unused MuJoCo buffers) hold nothing and orbax refuses them
    return {f"{i:05d}": x for i, x in enumerate(leaves) if x.size}


def save(mgr: ocp.CheckpointManager, step: int, state: Any, envs: Any = None,
         wall_s: float | None = None) -> None:
    """Checkpoint `step`: the training state, and the env states and the wall-clock seconds
    trained so far when given."""
    items = {"state": ocp.args.StandardSave(_host_tree(state))}
    if envs is not None:
        items["envs"] = ocp.args.StandardSave(_env_leaves(_episodes(envs)))
    if wall_s is not None:
        items["progress"] = ocp.args.JsonSave({"wall_s": float(wall_s)})
    mgr.save(step, args=ocp.args.Composite(**items))
    mgr.wait_until_finished()


def restore(mgr: ocp.CheckpointManager, like: Any, step: int | None = None) -> tuple[int, Any]:
    """The latest (or given) checkpoint, with the structure of `like`."""
    if step is not None and step not in mgr.all_steps():
        kept = ", ".join(map(str, sorted(mgr.all_steps()))) or "none"
        raise CheckpointError(f"{mgr.directory} has no checkpoint at step {step}; it kept {kept}")
    step = mgr.latest_step() if step is None else step
    if step is None:
        raise CheckpointError(f"no checkpoint to resume from in {mgr.directory}")
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _host_tree(like))
    try:
        if _has_item(mgr, step, "state"):
            restored = mgr.restore(step, args=ocp.args.Composite(
                state=ocp.args.StandardRestore(abstract)))["state"]
        else:  # a checkpoint from before env states were saved: one unnamed item
            restored = mgr.restore(step, args=ocp.args.StandardRestore(abstract))
        # orbax hands back the saved shapes whatever was asked for: compare them here
        mismatch = _first_mismatch(abstract, restored)
        if mismatch:
            raise ValueError(mismatch)
        state = serialization.from_state_dict(like, restored)
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {step} in {mgr.directory} does not match this run's "
                              f"networks or config: {e}") from None
    return step, state


def trained_wall_s(mgr: ocp.CheckpointManager, step: int) -> float | None:
    """Wall-clock seconds of training up to checkpoint `step`, across earlier resumes; None
    for a checkpoint written before they were recorded."""
    if not _has_item(mgr, step, "progress"):
        return None
    progress = mgr.restore(step, args=ocp.args.Composite(progress=ocp.args.JsonRestore()))
    return float(progress["progress"]["wall_s"])


def _has_item(mgr: ocp.CheckpointManager, step: int, name: str) -> bool:
    return (Path(mgr.directory) / str(step) / name).is_dir()


def _saved_mismatch(mgr: ocp.CheckpointManager, step: int, abstract: dict) -> str | None:
    """How the env arrays saved with `step` differ from `abstract`, told from the checkpoint's
    metadata before anything is read; None when they match or the metadata cannot say."""
    try:  # from the item's handler: a manager that has not written it knows no metadata
        saved = dict(ocp.StandardCheckpointHandler().metadata(
            Path(mgr.directory) / str(step) / "envs").tree)
    except (FileNotFoundError, KeyError, AttributeError, TypeError, ValueError):
        return None
    if set(saved) != set(abstract):
        return f"it holds {len(saved)} arrays, this run has {len(abstract)}"
    return _first_mismatch(abstract, {key: saved[key] for key in abstract})


def _shorten(message: str, limit: int = 200) -> str:
    line = message.strip().splitlines()[0] if message.strip() else message
    return line if len(line) <= limit else line[:limit] + " ..."


def _first_mismatch(abstract: Any, restored: Any) -> str | None:
    """The first leaf whose saved shape or dtype differs from the expected one, described.
    `restored` holds arrays or orbax's array metadata (both have a shape and a dtype)."""
    expected = jax.tree_util.tree_flatten_with_path(abstract)[0]
    got = jax.tree.leaves(restored, is_leaf=lambda x: hasattr(x, "shape"))
    if len(got) != len(expected):
        return f"it holds {len(got)} arrays, this run has {len(expected)}"
    for (path, want), have in zip(expected, got):
        have = have if hasattr(have, "shape") else np.asarray(have)
        shape, dtype = tuple(have.shape), np.dtype(have.dtype)
        if shape != tuple(want.shape) or dtype != want.dtype:
            return (f"{jax.tree_util.keystr(path)} is saved as {dtype}{list(shape)}, "
                    f"this run's is {want.dtype}{list(want.shape)}")
    return None


def restore_envs(mgr: ocp.CheckpointManager, step: int, like: Any) -> tuple[Any, str | None]:
    """The env states saved with checkpoint `step`, in the structure of `like` (a fresh reset
    of the run's envs) and on `like`'s robots: (states, None), or (None, why not) when that
    checkpoint holds none or they do not fit (another number of envs or devices, another env
    config)."""
    if not _has_item(mgr, step, "envs"):
        return None, "the checkpoint holds no env states"
    leaves, treedef = jax.tree.flatten(jax.device_get(_episodes(like)))
    abstract = {k: ocp.utils.to_shape_dtype_struct(v) for k, v in _env_leaves(leaves).items()}
    mismatch = _saved_mismatch(mgr, step, abstract)
    if not mismatch:
        try:
            restored = mgr.restore(step, args=ocp.args.Composite(
                envs=ocp.args.StandardRestore(abstract)))["envs"]
            mismatch = _first_mismatch(abstract, restored)
        except (ValueError, KeyError, TypeError) as e:
            # orbax's own message can list every saved key on one line
            mismatch = _shorten(str(e))
    if mismatch:
        return None, f"the saved env states do not fit this run: {mismatch}"
    envs = jax.tree.unflatten(treedef, [restored.get(f"{i:05d}", np.asarray(x))
                                        for i, x in enumerate(leaves)])
    if _episodes(like) is not like:
        envs = envs.replace(info={**envs.info, "model": like.info["model"]})
    return envs, None
