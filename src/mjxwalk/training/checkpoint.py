"""Orbax checkpoints of the whole training state, written atomically.

Orbax writes each step into a temporary folder and renames it when complete, so a kill at
any moment leaves the previous checkpoints readable; `latest()` only sees finished ones.
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


def save(mgr: ocp.CheckpointManager, step: int, state: Any) -> None:
    mgr.save(step, args=ocp.args.StandardSave(_host_tree(state)))
    mgr.wait_until_finished()


def restore(mgr: ocp.CheckpointManager, like: Any, step: int | None = None) -> tuple[int, Any]:
    """The latest (or given) checkpoint, with the structure of `like`."""
    step = mgr.latest_step() if step is None else step
    if step is None:
        raise CheckpointError(f"no checkpoint to resume from in {mgr.directory}")
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _host_tree(like))
    try:
        restored = mgr.restore(step, args=ocp.args.StandardRestore(abstract))
        state = serialization.from_state_dict(like, restored)
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {step} in {mgr.directory} does not match this run's "
                              f"networks or config: {e}") from None
    return step, state
