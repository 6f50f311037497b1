"""A worker process stops on SIGTERM even when the signal comes while the work holds a lock its stop needs.

Each case runs in an interpreter of its own (a signal handler is process-wide) that sends itself SIGTERM while its
work holds the lock that ``on_stop`` takes, as a loop's wake-up event is held inside its own ``wait()``. Run in
the main thread beside its handler, the same work waits for itself forever: the control case shows that the
test can tell.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from torres_service.signals import run_until_signalled

    lock = threading.Lock()

    def work(stop):
        with lock:  # the signal comes while the work holds the lock that stopping it takes
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.3)
        stop.wait(10)
        print("stopped" if stop.is_set() else "not stopped", flush=True)
        if sys.argv[2] == "fail":
            raise RuntimeError("the work failed")

    def on_stop():
        with lock:
            pass

    if sys.argv[1] == "helper":
        run_until_signalled(work, on_stop=on_stop)
    else:  # the loop in the main thread, its handler beside it
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: (stop.set(), on_stop()))
        work(stop)
""")


def run(how: str, outcome: str = "ok", timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, how, outcome], capture_output=True, text=True,
                          timeout=timeout)


def test_a_signal_while_the_work_holds_its_stops_lock_stops_it() -> None:
    done = run("helper")
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr


def test_the_works_exception_is_the_process_exit_status() -> None:
    done = run("helper", "fail")
    assert done.returncode == 1 and done.stdout == "stopped\n"
    assert "RuntimeError: the work failed" in done.stderr


def test_control_the_same_work_in_the_main_thread_never_stops() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        run("main thread", timeout=3)
