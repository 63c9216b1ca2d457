"""The JAX compatibility layer, on the installed JAX (one CPU device here; two in
test_run.py's multi-device test, which goes through the same functions)."""

import jax
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
