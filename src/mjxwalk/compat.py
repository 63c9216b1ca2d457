"""The few shims the dependency versions need, each small and tested.

MJX keeps contacts behind `Data._impl` since mujoco 3.3; reading them is isolated here so a
future layout change is mended in one place.
"""

from __future__ import annotations

import contextlib
import io
import sys

import jax
import numpy as np


def _import_mjx():
    """`mujoco.mjx`, without the 'Failed to import warp' notice MuJoCo prints when the optional
    warp package is absent (harmless, and confusing on users' screens)."""
    if "mujoco.mjx" in sys.modules:
        return sys.modules["mujoco.mjx"]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        from mujoco import mjx as module
    for line in buffer.getvalue().splitlines():
        if "import warp" not in line and "import mujoco_warp" not in line:
            print(line)
    return module


mjx = _import_mjx()
from mujoco.mjx._src import support as _mjx_support  # noqa: E402


def contacts(data: mjx.Data):
    """The MJX contact pytree (geom, dist, frame, efc_address, ...)."""
    impl = getattr(data, "_impl", None)
    return impl.contact if impl is not None else data.contact


def contact_normal_forces(model: mjx.Model, data: mjx.Data) -> jax.Array:
    """Normal force of every contact slot (0 for inactive slots), shape (ncon,)."""
    ncon = contacts(data).dist.shape[0]
    if ncon == 0:
        return jax.numpy.zeros((0,))
    # contact slots are static in MJX (efc addresses are host ints), so a Python loop is fine
    return jax.numpy.stack([_mjx_support.contact_force(model, data, i)[0] for i in range(ncon)])


def enable_compilation_cache(path: str | None = None) -> str | None:
    """Turn on JAX's persistent compilation cache unless the user configured one.

    MJX compiles take from seconds to minutes; the cache makes the second run of anything
    start at once. Default location: $MJXWALK_CACHE or ~/.cache/mjxwalk/jax.
    """
    import os

    if jax.config.jax_compilation_cache_dir:
        return jax.config.jax_compilation_cache_dir
    path = path or os.environ.get("MJXWALK_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "mjxwalk", "jax")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None  # read-only home: run uncached rather than fail
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
    return path


def _mesh_sharding(devices):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(devices), ("d",))
    return NamedSharding(mesh, PartitionSpec("d"))


def shard(tree, devices):
    """Split each leaf's leading axis (one slice per device) across `devices`, as pmap takes.

    The result lives in buffers XLA allocated itself (see `owned_copy`), so the training
    step may donate it.
    """
    sharding = _mesh_sharding(devices)
    return owned_copy(jax.tree.map(lambda x: jax.device_put(x, sharding), tree))


@jax.jit
def _copy_tree(tree):
    # the barrier keeps JAX from forwarding the inputs as outputs; XLA then writes the
    # outputs into buffers of its own, as it must for inputs that are not donated
    return jax.lax.optimization_barrier(tree)


def owned_copy(tree):
    """`tree`'s device arrays copied into buffers XLA allocated, on the same devices.

    On CPU `jax.device_put` of a numpy array can alias the numpy memory (jax issue 37830),
    and orbax hands restored arrays back as numpy views of memory it owns. The training
    step donates its inputs, so XLA would write its outputs into memory numpy or orbax may
    free.
    """
    return _copy_tree(tree)


def as_pmap_outputs(tree, axis_name: str):
    """`tree` (leading axis: the local devices) in fresh buffers laid out exactly as a pmap
    over `axis_name` lays out its outputs.

    A pmapped step fed its own outputs traces and compiles again if its first inputs were
    laid out otherwise (JAX 0.10 names the mesh axis after the pmap's axis: arrays sharded
    over another name, or replicated by sharding propagation, do not match). Passing the
    first inputs through a pmapped identity gives them the layout later calls bring,
    whatever the JAX version makes of it.
    """
    return jax.pmap(jax.lax.optimization_barrier, axis_name=axis_name)(tree)


def replicate(tree, devices):
    """One copy of `tree` per device, stacked on a leading axis and sharded across them.

    The replacement for `jax.device_put_replicated` (removed in JAX 0.10): the copies live
    on their own devices, which brax's multi-device code relies on when it reads per-device
    shards back (stacking copies on one device works with one device and breaks with two).
    """
    stacked = jax.tree.map(lambda x: np.stack([np.asarray(x)] * len(devices)), tree)
    return shard(stacked, devices)


def host_barrier(name: str, timeout_s: float = 3600.0) -> None:
    """Wait until every process of a jax.distributed run reaches `name`; no-op alone.

    Goes through the coordinator's key-value store, not through a collective: gloo gives
    up building its context when processes reach their first collective more than 30 s
    apart (one compiling longer than the other), so they meet here first.
    """
    if jax.process_count() == 1:
        return
    from jax._src import distributed  # the runtime client has no public accessor

    client = distributed.global_state.client
    if client is None:
        raise RuntimeError("several JAX processes but no distributed client; call "
                           "jax.distributed.initialize first")
    client.wait_at_barrier(f"mjxwalk/{name}", timeout_in_ms=int(timeout_s * 1000))


def initialize_distributed(coordinator: str, num_processes: int | None,
                           process_id: int | None) -> None:
    """jax.distributed.initialize with CPU collectives over gloo (JAX's CPU default is
    none, which makes cross-process collectives fail)."""
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator, num_processes, process_id)


def install_brax_shims() -> list[str]:
    """Give JAX back `device_put_replicated` / `device_put_sharded` for brax's `ppo.train`
    (brax issue #671) when this JAX lacks them; returns the names installed."""
    installed = []
    if not hasattr(jax, "device_put_replicated"):
        jax.device_put_replicated = lambda x, devices: replicate(x, devices)
        installed.append("device_put_replicated")
    if not hasattr(jax, "device_put_sharded"):
        def device_put_sharded(shards, devices):
            return shard(jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *shards),
                         devices)
        jax.device_put_sharded = device_put_sharded
        installed.append("device_put_sharded")
    return installed
