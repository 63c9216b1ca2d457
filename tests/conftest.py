"""Shared fixtures: compiled functions are built once per session (MJX compiles are slow)."""

from __future__ import annotations

import os
import pathlib

# Before JAX is imported anywhere: a persistent compilation cache shared by test runs, one
# per pytest-xdist worker (JAX writes an entry in place, so a worker could read half of an
# entry the other is writing). The controller runs this first and the workers inherit its
# environment, so the base is kept apart from the per-process directory.
_BASE = os.environ.setdefault("MJXWALK_TEST_CACHE", os.environ.get(
    "JAX_COMPILATION_CACHE_DIR", str(pathlib.Path(__file__).resolve().parents[1] / ".jax_cache")))
os.environ["JAX_COMPILATION_CACHE_DIR"] = os.path.join(
    _BASE, os.environ.get("PYTEST_XDIST_WORKER", "main"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")
os.environ.setdefault("MUJOCO_GL", "egl")
# XLA's backend at -O1 compiles the MJX programs about 15% quicker and steps them about 6%
# slower than its default: the suite compiles far more than it steps. Subprocesses the tests
# start inherit it, and so share the compilation cache with them.
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + " --xla_backend_optimization_level=1").strip()

import pytest  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(__file__).parent / "data"

# Test files that compile the same programs run on one pytest-xdist worker: a program one
# worker compiled is a cache miss for the other, and each costs about a minute. quickstart
# runs `--dist loadfile`; the scheduler below makes these files one unit of it.
SHARED_COMPILES = {f"tests/envs/{name}.py": "tests/envs (one walk env's programs)"
                   for name in ("test_walk", "test_walk_mirror", "test_walk_realism")}
# The longest units, longest first (minutes on 2 cores, benchmarks/results/
# test_suite_durations.json): handed out first, so that no long one starts when the other
# worker is nearly done. The rest follow in collection order.
LONGEST_FIRST = ("tests/envs/test_walk.py", "tests/training/test_run.py",
                 "tests/training/test_learning.py", "tests/training/test_run_scale_out.py",
                 "tests/training/test_estimator.py", "tests/cli/test_bench.py")


def _unit(path: str) -> str:
    return SHARED_COMPILES.get(path, path)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which may be absent
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile` with the SHARED_COMPILES files as one unit, units in the order
    collected (xdist would otherwise hand out the units with the most tests first)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedCompiles(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(super()._split_scope(nodeid))

    config.option.loadscopereorder = False
    return SharedCompiles(config, log)


def pytest_collection_modifyitems(config, items):
    rank = {_unit(path): i for i, path in enumerate(LONGEST_FIRST)}
    # a stable sort: each file keeps its tests' order, and the shared files stay together
    items.sort(key=lambda item: rank.get(_unit(_path(item)), len(rank)))


def _path(item) -> str:
    return pathlib.Path(item.fspath).resolve().relative_to(ROOT).as_posix()


@pytest.fixture(scope="session")
def kidbot():
    import mjxwalk

    return mjxwalk.load_robot("kidbot")


@pytest.fixture(scope="session")
def walk_env(kidbot):
    import mjxwalk

    return mjxwalk.make_env("walk", kidbot)


@pytest.fixture(scope="session")
def nominal_env(kidbot):
    """kidbot walk env with every randomization, delay, noise and push off."""
    import mjxwalk
    from mjxwalk.config import WalkConfig, without_randomization

    return mjxwalk.make_env("walk", kidbot, config=without_randomization(WalkConfig()))


@pytest.fixture(scope="session")
def batched(nominal_env):
    """jit(vmap(reset)) and jit(vmap(step)) of the nominal kidbot walk env."""
    import jax

    return jax.jit(jax.vmap(nominal_env.reset)), jax.jit(jax.vmap(nominal_env.step))


@pytest.fixture(scope="session")
def clock_env(kidbot):
    """The nominal kidbot walk env with a clock the policy moves (gait 1.5 ± 0.5 Hz)."""
    import dataclasses

    import mjxwalk
    from mjxwalk.config import WalkConfig, without_randomization

    config = dataclasses.replace(without_randomization(WalkConfig()), gait_frequency_span=0.5)
    return mjxwalk.make_env("walk", kidbot, config=config)


@pytest.fixture(scope="session")
def phase_offset_env(kidbot):
    """The nominal kidbot walk env with a clock the policy shifts (up to ±1 rad)."""
    import dataclasses

    import mjxwalk
    from mjxwalk.config import WalkConfig, without_randomization

    config = dataclasses.replace(without_randomization(WalkConfig()), gait_phase_offset_span=1.0)
    return mjxwalk.make_env("walk", kidbot, config=config)


@pytest.fixture(scope="session")
def phase_offset_batched(phase_offset_env):
    """jit(vmap(reset)) and jit(vmap(step)) of `phase_offset_env`."""
    import jax

    return jax.jit(jax.vmap(phase_offset_env.reset)), jax.jit(jax.vmap(phase_offset_env.step))


@pytest.fixture(scope="session")
def clock_batched(clock_env):
    """jit(vmap(reset)) and jit(vmap(step)) of `clock_env`."""
    import jax

    return jax.jit(jax.vmap(clock_env.reset)), jax.jit(jax.vmap(clock_env.step))


@pytest.fixture(scope="session")
def brax_humanoid_spec(tmp_path_factory):
    """Spec file for brax's humanoid MJCF, a model nobody on this project wrote."""
    import brax

    mjcf = pathlib.Path(brax.__file__).parent / "envs" / "assets" / "humanoid.xml"
    text = (DATA / "brax_humanoid.toml").read_text().replace("@BRAX_HUMANOID@", str(mjcf))
    path = tmp_path_factory.mktemp("brax_humanoid") / "brax_humanoid.toml"
    path.write_text(text)
    return path


@pytest.fixture
def kidbot_copy(tmp_path):
    """A writable copy of the built-in robot's folder."""
    import shutil

    from mjxwalk.robot import models_dir

    dst = tmp_path / "kidbot"
    shutil.copytree(models_dir() / "kidbot", dst)
    return dst
