"""The JAX compatibility layer, on the installed JAX (one CPU device here; two in
test_run.py's multi-device test, which goes through the same functions)."""

import jax
import pytest
import numpy as np

from mjxwalk import compat


def test_replicate_puts_one_copy_on_each_device():
    devices = jax.local_devices()
    tree = {"a": np.arange(3.0), "b": np.float32(2.0)}
    out = compat.replicate(tree, devices)
    assert out["a"].shape == (len(devices), 3)
    assert {s.device for s in out["a"].addressable_shards} == set(devices)
    np.testing.assert_array_equal(np.asarray(out["a"])[0], tree["a"])


def test_shard_splits_the_leading_axis():
    devices = jax.local_devices()
    x = np.arange(len(devices) * 4.0).reshape(len(devices), 4)
    out = compat.shard(x, devices)
    for s in out.addressable_shards:
        np.testing.assert_array_equal(np.asarray(s.data)[0], x[devices.index(s.device)])


def test_brax_shims_are_installed_only_when_missing(monkeypatch):
    for name in ("device_put_replicated", "device_put_sharded"):
        monkeypatch.delattr(jax, name, raising=False)
    assert compat.install_brax_shims() == ["device_put_replicated", "device_put_sharded"]
    assert compat.install_brax_shims() == []  # present now: nothing replaced
    devices = jax.local_devices()
    r = jax.device_put_replicated(np.ones(2), devices)
    assert r.shape == (len(devices), 2)
    s = jax.device_put_sharded([np.full(2, i) for i in range(len(devices))], devices)
    np.testing.assert_array_equal(np.asarray(s)[:, 0], np.arange(len(devices)))


def test_shard_hands_over_buffers_of_xlas_own():
    """The training step donates what shard returns. A plain device_put on CPU reuses the
    numpy memory (checked first, so this test notices if JAX stops doing that), and donating
    memory numpy or orbax owns corrupted the heap of resumed runs."""
    devices = jax.local_devices()
    n = len(devices) * 1024
    buffer = np.empty(n + 16, np.float32)  # 64-byte aligned, as CPU zero-copy needs
    start = (-buffer.ctypes.data % 64) // 4
    x = buffer[start:start + n].reshape(len(devices), 1024)
    x[:] = np.arange(n).reshape(x.shape)
    pointer = lambda a: a.addressable_shards[0].data.unsafe_buffer_pointer()
    aliased = jax.device_put(x, compat._mesh_sharding(devices))
    if pointer(aliased) != x.ctypes.data:
        pytest.skip("this JAX copies numpy arrays on device_put; nothing to guard against")
    out = compat.shard(x, devices)
    assert pointer(out) != x.ctypes.data
    np.testing.assert_array_equal(np.asarray(out), x)
    assert out.sharding == aliased.sharding
    again = compat.owned_copy(out)
    assert pointer(again) != pointer(out)


def test_a_pmapped_step_fed_its_own_outputs_traces_once():
    """What the training loop does: replicate the state, then feed each iteration's output
    into the next. Laid out by as_pmap_outputs, the first inputs match what later calls
    bring, so the step traces (and compiles) once, not twice."""
    devices = jax.local_devices()
    traces = []

    def step(tree):
        traces.append(1)
        return jax.tree.map(lambda x: x + 1, tree)

    p_step = jax.pmap(step, axis_name="devices")
    tree = {"w": np.ones((3, 2), np.float32), "n": np.int32(0)}
    x = compat.as_pmap_outputs(compat.replicate(tree, devices), "devices")
    np.testing.assert_array_equal(np.asarray(x["w"])[0], tree["w"])  # the values came through
    for _ in range(3):
        x = p_step(x)
    assert len(traces) == 1
    assert int(np.asarray(x["n"])[0]) == 3
