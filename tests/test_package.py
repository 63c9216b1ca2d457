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


def test_wheel_carries_the_robot_models_and_the_shipped_policies(tmp_path):
    """What pip installs from a wheel: src/mjxwalk/_models and _policies are links into
    models/, and package data must follow them, or an installed mjxwalk has no robot and no
    policy. Built offline from a copy of the tree (the setuptools the dev extra installs)."""
    import shutil
    import zipfile
    from pathlib import Path

    from mjxwalk.policies import RUN_FILES, list_policies

    root = Path(__file__).resolve().parents[1]
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("src", "models"):
        shutil.copytree(root / part, tree / part, symlinks=True, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, tree / name)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--no-index", "-q", "-w", str(tmp_path / "dist"), str(tree)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("mjxwalk-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        robot = root / "models" / "mjcf" / "kidbot"
        for f in robot.iterdir():
            assert z.read(f"mjxwalk/_models/kidbot/{f.name}") == f.read_bytes()
        assert list_policies()  # the checkout ships at least one
        for policy in list_policies():
            for f in (*RUN_FILES, "trained.json"):
                path = f"mjxwalk/_policies/{policy}/{f}"
                assert path in names, path
                assert z.read(path) == (root / "models" / "policies" / policy / f).read_bytes()
