"""The package as users meet it: light import, honest console scripts."""

import subprocess
import sys


def run_py(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_is_light():
    r = run_py("import sys, mjxwalk; print(mjxwalk.__version__); "
               "print('jax' in sys.modules, 'mujoco' in sys.modules)")
    assert r.returncode == 0, r.stderr
    version, loaded = r.stdout.split("\n", 1)
    assert version == "0.1.0"
    assert loaded.strip() == "False False"


def test_lazy_exports_resolve():
    r = run_py("import mjxwalk; print(mjxwalk.list_robots()); print(callable(mjxwalk.make_env))")
    assert r.returncode == 0, r.stderr
    assert "kidbot" in r.stdout and "True" in r.stdout
    r = run_py("import mjxwalk; mjxwalk.nope")
    assert "has no attribute 'nope'" in r.stderr


def test_no_warp_notice_on_screen():
    r = run_py("import mjxwalk.envs")
    assert "warp" not in r.stdout + r.stderr


def test_runner_says_it_is_not_there_yet():
    r = subprocess.run([sys.executable, "-m", "mjxwalk.cli.run"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert "not available yet" in r.stderr


def test_bench_rejects_bad_arguments():
    r = subprocess.run([sys.executable, "-m", "mjxwalk.cli.bench", "--batch", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "must be >= 1" in r.stderr
