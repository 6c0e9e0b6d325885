"""A real Redis server for the shared-mode tests: Debian's ``redis-server`` on a free
loopback port, in a temporary folder, started and stopped (and restarted) by the tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

INSTALL_HINT = "install Redis to run the shared-mode tests: apt-get install redis-server"


def redis_server_binary() -> str:
    """The path of redis-server; skips the test without one, or fails it under CI."""
    found = shutil.which("redis-server")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"redis-server not found under CI: {INSTALL_HINT}")
        pytest.skip(f"redis-server not found: {INSTALL_HINT}")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Persistence options: an append-only file fsynced at every write (the tests' default), or
#: Debian's packaged default (snapshots only: after 3600 s and 1 change, 300 s and 100, 60 s
#: and 10,000; a SIGTERM saves one).
APPEND_ONLY = ("--appendonly", "yes", "--appendfsync", "always", "--save", "")
SNAPSHOT = ("--appendonly", "no", "--save", "3600 1 300 100 60 10000")


class RedisServer:
    """One redis-server process; ``restart`` keeps its port and its data (an append-only
    file, or a snapshot), as a Redis restarted by its service manager would."""

    def __init__(
        self, folder: Path, port: int | None = None, persistence: tuple[str, ...] = APPEND_ONLY
    ) -> None:
        self.binary = redis_server_binary()
        self.folder = folder
        self.port = port or free_port()
        self.persistence = persistence
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            *self.persistence,
            "--protected-mode", "yes",
        ]  # fmt: skip
        with (self.folder / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def crash(self) -> None:
        """SIGKILL: Redis saves nothing, and comes back from what was on disk."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def restart(self, down_seconds: float = 0.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()
