"""Training scaled out: brax's multi-device path and jax.distributed over two processes.

Each test trains in subprocesses of its own (a forced device count or a distributed runtime
cannot be set up in the pytest process), so it shares nothing with test_run.py.
"""

import json
import os
import subprocess
import sys
import textwrap

from mjxwalk.training.config import smoke


def _xla_flags() -> list[str]:
    """The suite's XLA flags (conftest.py) less any forced device count, with the backend at
    -O0: it halves the compile of these two minutes-long compiles, and a smoke run steps a
    few thousand times, where -O0's slower code costs seconds."""
    return [f for f in os.environ.get("XLA_FLAGS", "").split()
            if not f.startswith(("--xla_force_host_platform_device_count",
                                 "--xla_backend_optimization_level"))] \
        + ["--xla_backend_optimization_level=0"]


def test_two_devices(tmp_path):
    """brax's multi-device path (pmap over 2 forced host devices) trains end to end."""
    code = textwrap.dedent(f"""
        import jax, mjxwalk
        from mjxwalk.training.config import smoke
        assert jax.device_count() == 2
        r = mjxwalk.train(smoke(), out={str(tmp_path / 'two')!r}, show_progress=False)
        print("steps", r.env_steps, "devices", jax.device_count())
    """)
    # a cache of its own: JAX leaves the forced device count out of the cache key, and an
    # executable built for 2 host devices aborts a 1-device process that loads it
    flags = _xla_flags() + ["--xla_force_host_platform_device_count=2"]
    env = dict(os.environ, XLA_FLAGS=" ".join(flags),
               JAX_COMPILATION_CACHE_DIR=os.environ["JAX_COMPILATION_CACHE_DIR"] + "_2_devices")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"steps {smoke().num_timesteps} devices 2" in r.stdout


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_processes(code: str, timeout: float) -> list[str]:
    """Run `code` as processes 0 and 1 (its argv[1]) at once; the last line each printed."""
    env = dict(os.environ, XLA_FLAGS=" ".join(_xla_flags()))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for i in range(2)]
    outs = [p.communicate(timeout=timeout) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    return [out.strip().splitlines()[-1] for out, _ in outs]


def test_two_processes_train_together(tmp_path):
    """jax.distributed on localhost: two processes, one CPU device each, one PPO run.

    Each process steps its own envs; if the gradients were not averaged across them their
    parameters would drift apart, so equal final parameters show they trained together.
    Process 1 sleeps before compiling so the two reach their first collective far more
    than gloo's 30 s context deadline apart, which the run must absorb.
    """
    port = _free_port()
    code = textwrap.dedent(f"""
        import sys, time, jax, numpy as np, mjxwalk
        from mjxwalk import compat
        from mjxwalk.training.config import smoke
        pid = int(sys.argv[1])
        compat.initialize_distributed("127.0.0.1:{port}", 2, pid)
        assert jax.device_count() == 2 and jax.local_device_count() == 1
        if pid == 1:
            time.sleep(35)
        r = mjxwalk.train(smoke(), out={str(tmp_path / 'multi')!r}, show_progress=False)
        leaves = [np.asarray(x, np.float64) for x in jax.tree.leaves(r.state.params.policy)]
        print("steps", r.env_steps, "processes", jax.process_count(),
              "fingerprint", repr(sum(float(np.sum(x * (i + 1))) for i, x in enumerate(leaves))))
        jax.distributed.shutdown()
    """)
    lines = [line.split() for line in _two_processes(code, timeout=900)]
    for line in lines:
        assert line[:4] == ["steps", str(smoke().num_timesteps), "processes", "2"], line
    assert lines[0][5] == lines[1][5], "the two processes ended with different parameters"
    saved = json.loads((tmp_path / "multi" / "config.json").read_text())
    assert saved["processes"] == 2 and saved["devices"] == 2
    assert (tmp_path / "multi" / "policy_params.msgpack").exists()
    # both processes share this run directory, as hosts on shared storage do: only process 0
    # writes metrics, so each iteration has one row and there is one TensorBoard file
    rows = (tmp_path / "multi" / "metrics.jsonl").read_text().splitlines()
    assert len(rows) == smoke().num_timesteps // smoke().env_steps_per_iteration
    assert len(list((tmp_path / "multi").glob("events.out.tfevents.*"))) == 1


def test_processes_agree_on_stopping(tmp_path):
    """What ends a multi-host run, as every process sees it: process 0's budget (clocks
    differ between hosts) and a signal to any one process (a preemption may reach one host
    only); a process that stopped alone would leave the others in their next collective.
    Two processes exchange only the flags, so this compiles no training step."""
    port = _free_port()
    code = textwrap.dedent(f"""
        import sys
        from mjxwalk import compat
        pid = int(sys.argv[1])
        compat.initialize_distributed("127.0.0.1:{port}", 2, pid)
        from mjxwalk.training.run import _stop_flags
        # (over_budget, signalled) per process, for process 0 and process 1
        cases = [((False, False), (False, False)), ((False, False), (False, True)),
                 ((False, False), (True, False)), ((True, False), (False, False))]
        print("agreed", [_stop_flags(*case[pid]) for case in cases])
        import jax
        jax.distributed.shutdown()
    """)
    expected = "agreed [(False, False), (False, True), (False, False), (True, False)]"
    assert _two_processes(code, timeout=300) == [expected, expected]
