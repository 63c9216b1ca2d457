"""quickstart.py, the README's two commands: what it does besides setting up the venv."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from conftest import ROOT

# A command that, like mjxwalk-train, takes a while to stop on Ctrl-C and exits with a code
# of its own; it also reports whether it started with Python's own SIGINT handler.
CHILD = textwrap.dedent("""
    import signal, sys, time
    print("default handler:", signal.getsignal(signal.SIGINT) is signal.default_int_handler,
          flush=True)
    def stop(signum, frame):
        time.sleep(1.0)  # an iteration to finish, a checkpoint to write
        print("stopped cleanly", flush=True)
        sys.exit(7)
    signal.signal(signal.SIGINT, stop)
    print("ready", flush=True)
    time.sleep(60)
""")


def test_ctrl_c_is_left_to_the_command_which_stops_cleanly():
    """Ctrl-C reaches the whole foreground process group: quickstart must wait for the
    command to stop on its own and return its code, not kill it, and the command must not
    inherit an ignored SIGINT (it would then never stop on Ctrl-C)."""
    wrapper = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import quickstart; "
               f"sys.exit(quickstart.run([sys.executable, '-c', {CHILD!r}], dict(__import__('os').environ)))")
    proc = subprocess.Popen([sys.executable, "-c", wrapper], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    assert lines == ["default handler: True\n", "ready\n"], (lines, proc.stderr.read())
    time.sleep(0.2)  # the parent sets its handler just after starting the child
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 7, (out, err)
    assert "stopped cleanly" in out
    assert "KeyboardInterrupt" not in err
