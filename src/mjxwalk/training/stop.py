"""Stopping a run cleanly on Ctrl-C or SIGTERM (a cluster's preemption, `kill`): the loop
ends after its current iteration and the run ends as a budget would end it, with a
checkpoint of that iteration, the policy and the summary, instead of losing everything since
the last periodic checkpoint (five minutes of a `cpu` run)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that ask a run to stop."""


class StopRequest:
    """Whether a stop was asked for while `stop_on_signals` was active, and by which signal."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        """'SIGINT' or 'SIGTERM' once one arrived; None before."""

    def __bool__(self) -> bool:
        return self.signal_name is not None


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """Within the block, the first SIGINT or SIGTERM only sets the yielded request (and says
    so on stderr); a second one of either does what it did before the block (Ctrl-C raises
    KeyboardInterrupt at once). A signal the process ignores (SIGINT in a job a
    non-interactive shell put in the background) stays ignored. Python only lets the main
    thread set handlers: in any other thread the request stays empty and the signals keep
    their behaviour."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    # None: a handler set outside Python, which we cannot put back; the default instead
    previous = {s: signal.getsignal(s) or signal.SIG_DFL for s in SIGNALS}
    previous = {s: h for s, h in previous.items() if h != signal.SIG_IGN}

    def restore() -> None:
        for s, handler in previous.items():
            signal.signal(s, handler)

    def handle(signum, frame) -> None:
        if request:
            restore()
            before = previous[signum]
            if callable(before):
                before(signum, frame)
            else:  # SIG_DFL, restored above: the default action (SIGTERM ends the process)
                os.kill(os.getpid(), signum)
            return
        request.signal_name = signal.Signals(signum).name
        print(f"\n{request.signal_name}: stopping training after this iteration, with a checkpoint"
              " (send it again to stop at once, keeping only the last checkpoint)",
              file=sys.stderr, flush=True)

    for s in previous:
        signal.signal(s, handle)
    try:
        yield request
    finally:
        restore()
