"""Signals that stop a run: the first asks, a second acts as it would without the handler."""

import signal
import threading

import pytest

from mjxwalk.training.stop import SIGNALS, stop_on_signals


@pytest.fixture
def python_handlers():
    """Python's own handlers for the duration of a test (a test runner may have set others),
    put back afterwards."""
    before = {s: signal.getsignal(s) for s in SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for s, h in before.items():
        signal.signal(s, h)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_the_first_signal_only_asks_to_stop_and_says_so(python_handlers, capsys, sig):
    with stop_on_signals() as request:
        assert not request
        signal.raise_signal(sig)  # a SIGTERM that did its default would end pytest here
        assert request and request.signal_name == sig.name
    assert f"{sig.name}: stopping training after this iteration" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_second_ctrl_c_interrupts_at_once(python_handlers):
    with pytest.raises(KeyboardInterrupt):
        with stop_on_signals() as request:
            signal.raise_signal(signal.SIGINT)
            assert request
            signal.raise_signal(signal.SIGINT)
            pytest.fail("the second SIGINT did not interrupt")


def test_an_ignored_signal_stays_ignored(python_handlers):
    """A job a non-interactive shell puts in the background ignores SIGINT: it must not
    start stopping on one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with stop_on_signals() as request:
        signal.raise_signal(signal.SIGINT)
        assert not request
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_outside_the_main_thread_nothing_changes(python_handlers):
    """Python lets only the main thread set handlers; train() in a thread still runs."""
    seen = {}

    def body():
        with stop_on_signals() as request:
            seen["request"] = bool(request)
            seen["handler"] = signal.getsignal(signal.SIGINT)

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    assert seen == {"request": False, "handler": signal.default_int_handler}
