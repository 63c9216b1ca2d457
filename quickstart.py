#!/usr/bin/env python3
"""Set up everything mjxwalk needs on a fresh machine, then run the main job or the tests.

    python3 quickstart.py          # the main job: train a walking policy on built-in defaults
    python3 quickstart.py test     # the test suite

Creates ./.venv (once), installs the package and its dependencies into it (again only when
pyproject.toml changes), and runs the command there. Extra arguments are passed on.
Needs only Python 3.11+ and network access to the package index on the first run.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("MJXWALK_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".mjxwalk-installed"


def ensure_environment() -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"mjxwalk needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"[quickstart] creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    print("[quickstart] installing mjxwalk and its dependencies (first run: a few minutes)",
          flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["--upgrade", "pip"], check=True)
    subprocess.run(pip + ["-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    job = argv[0] if argv and not argv[0].startswith("-") else "main"
    extra = argv[1:] if argv and not argv[0].startswith("-") else argv
    if job not in ("main", "test"):
        sys.exit(f"usage: python3 quickstart.py [main|test] [args...] (got {job!r})")
    ensure_environment()
    env = dict(os.environ, MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"))
    if job == "test":
        # two workers: most of the suite is single-threaded XLA compiles
        chosen = any(a.startswith(("-n", "--numprocesses", "--pdb")) or "no:xdist" in a
                     for a in extra)
        workers = [] if chosen or (os.cpu_count() or 1) < 2 else ["-n", "2", "--dist", "loadfile"]
        cmd = [str(BIN / "python"), "-m", "pytest", *workers, *extra]
    else:  # the cpu preset on a CPU (gpu on an accelerator), with a budget one can wait for
        has_budget = any(a.startswith("--minutes") for a in extra)
        cmd = [str(BIN / "mjxwalk-train"), *([] if has_budget else ["--minutes", "10"]), *extra]
    print("[quickstart] " + " ".join(cmd), flush=True)
    return run(cmd, env)


def run(cmd: list[str], env: dict) -> int:
    """Run `cmd` and return its exit code, leaving Ctrl-C to it: the terminal sends SIGINT to
    both processes, and the command stops cleanly on its own (mjxwalk-train finishes its
    iteration and checkpoints, pytest reports), where subprocess.run would kill it 0.25 s
    after the parent's KeyboardInterrupt. SIGINT is ignored only after the start, so the
    command does not inherit the ignoring."""
    with subprocess.Popen(cmd, cwd=ROOT, env=env) as child:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return child.wait()
        finally:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
