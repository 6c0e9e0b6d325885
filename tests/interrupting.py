"""Commands run in a session of their own, for the tests that interrupt them: Ctrl-C goes to
the command's process alone (as ``kill -INT`` does), and a command that outlives its test is
killed with every process it started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable

#: Seconds a command has to get far enough to be interrupted, then to stop.
START_SECONDS = 120
STOP_SECONDS = 60


def interrupted(
    command: list[str], ready: Callable[[], bool], env: dict[str, str] | None = None
) -> tuple[int, str]:
    """The exit status and standard error of ``command``, sent SIGINT once ``ready()``."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not ready() and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=STOP_SECONDS)
    finally:
        kill_group(process)
    return process.returncode, err


def kill_group(process: subprocess.Popen[str]) -> None:
    """The process and those it started, if it has not ended."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
