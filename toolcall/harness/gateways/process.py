"""Start a gateway as a child process, wait until it listens, and always stop all of it.

A gateway is a tree of processes (LiteLLM forks workers, npm-installed servers run under node),
so each is started in a session of its own and stopped as a process group: SIGTERM, a grace
period, then SIGKILL. The group is also stopped when the run is interrupted (Ctrl-C raises
KeyboardInterrupt in the parent, which unwinds through `running`; the child, in its own session,
never sees the terminal's SIGINT and so never dies half-way on its own). Readiness is a TCP
connect to the port on 127.0.0.1 within a deadline; a child that exits or never listens is an
error carrying the last lines it wrote, which is what a user needs to see.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

HOST = "127.0.0.1"
READY_TIMEOUT = 90.0
STOP_GRACE = 5.0


class DidNotStart(Exception):
    """The child exited, or did not listen in time; the message ends with its last log lines."""


def free_port() -> int:
    """A port nothing listens on right now (the kernel's choice for port 0)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int, host: str = HOST) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def start(
    command: Sequence[str],
    *,
    log: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """The command running in a new session, its output appended to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        return subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )


def wait_ready(
    child: subprocess.Popen[bytes], port: int, *, log: Path, timeout: float = READY_TIMEOUT
) -> None:
    """Return once `port` accepts connections; raise `DidNotStart` if the child exits first or
    the deadline passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise DidNotStart(f"exited with status {child.returncode}: {tail(log)}")
        if listening(port):
            return
        time.sleep(0.2)
    raise DidNotStart(f"not listening on {HOST}:{port} after {timeout:g} s: {tail(log)}")


def stop(child: subprocess.Popen[bytes], *, grace: float = STOP_GRACE) -> None:
    """Stop the child's whole process group: SIGTERM, then SIGKILL after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            break
        try:
            child.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; a worker it forked may still hold the group.
        with suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        break
    child.wait(timeout=grace)


@contextmanager
def running(
    command: Sequence[str],
    port: int,
    *,
    log: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    ready_timeout: float = READY_TIMEOUT,
    stop_grace: float = STOP_GRACE,
) -> Iterator[subprocess.Popen[bytes]]:
    """The command started and listening on `port`; its process group stopped on the way out,
    whatever way that is (an error, Ctrl-C, SIGTERM turned into an exception by `terminating`),
    with `stop_grace` seconds between SIGTERM and SIGKILL."""
    child = start(command, log=log, env=env, cwd=cwd)
    try:
        wait_ready(child, port, log=log, timeout=ready_timeout)
        yield child
    finally:
        stop(child, grace=stop_grace)


@contextmanager
def terminating() -> Iterator[None]:
    """SIGTERM (a CI runner cancelling the job) unwinds like Ctrl-C, so every `running` block
    stops its children; the previous handler comes back afterwards."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def tail(log: Path, lines: int = 5) -> str:
    """The last lines of a log, on one line, for an error message."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "(no output)"
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept) or "(no output)"
