"""The few shims the dependency versions need, each small and tested.

MJX keeps contacts behind `Data._impl` since mujoco 3.3; reading them is isolated here so a
future layout change is mended in one place.
"""

from __future__ import annotations

import contextlib
import io
import sys

import jax


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
