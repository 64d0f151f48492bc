"""Process control for the gateways: ready when listening, and the whole group stopped always."""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from toolcall.harness.gateways import process

#: A server that forks a worker (as LiteLLM and uvicorn do) and writes the worker's pid, then
#: listens on 127.0.0.1; both ignore SIGTERM when asked, to prove the SIGKILL fallback.
SERVER = """
import os, signal, socket, sys, time
port, pids, stubborn = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
if stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
worker = os.fork()
if worker == 0:
    time.sleep(120)
    os._exit(0)
open(pids, "w").write(str(worker))
s = socket.socket(); s.bind(("127.0.0.1", port)); s.listen()
print("listening", flush=True)
time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def gone(pid: int) -> bool:
    """Whether process `pid` has ended or ends: its pidfd turns readable when it exits, which
    the select waits for (at most 10 s, a bound on a hang, not a measure of anything)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], 10)
    finally:
        os.close(handle)
    return bool(readable) and not alive(pid)


@pytest.mark.parametrize("stubborn", [False, True])
def test_running_waits_for_the_port_and_stops_the_whole_group(
    tmp_path: Path, stubborn: bool
) -> None:
    port = process.free_port()
    pids = tmp_path / "worker.pid"
    command = [sys.executable, "-c", SERVER, str(port), str(pids), "1" if stubborn else "0"]
    # A short grace: the stubborn server ignores SIGTERM, so it is SIGKILL that must stop it.
    running = process.running(command, port, log=tmp_path / "log", ready_timeout=20, stop_grace=0.5)
    with running as child:
        assert process.listening(port)
        worker = int(pids.read_text())
        assert alive(child.pid) and alive(worker)
    assert not alive(child.pid)
    assert gone(worker), "the forked worker outlived its group's stop"
    assert not process.listening(port)
    assert "listening" in (tmp_path / "log").read_text()


def test_an_error_inside_the_block_still_stops_the_group(tmp_path: Path) -> None:
    port = process.free_port()
    pids = tmp_path / "worker.pid"
    command = [sys.executable, "-c", SERVER, str(port), str(pids), "0"]
    with (
        pytest.raises(KeyboardInterrupt),
        process.running(command, port, log=tmp_path / "log", ready_timeout=20) as child,
    ):
        raise KeyboardInterrupt
    worker = int(pids.read_text())
    assert not alive(child.pid)
    assert gone(worker), "the forked worker outlived its group's stop"


def test_a_child_that_exits_is_did_not_start_with_its_last_words(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "import sys; print('no config given'); sys.exit(3)"]
    with (
        pytest.raises(process.DidNotStart, match=r"status 3: no config given"),
        process.running(command, process.free_port(), log=tmp_path / "log"),
    ):
        pass


#: A child that never listens, and says so in its log when it is sent SIGTERM.
NEVER_LISTENS = """
import signal, sys, time
def stopped(*_):
    print("stopped by SIGTERM", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stopped)
print("warming up", flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_a_child_that_never_listens_is_stopped_after_the_deadline(tmp_path: Path) -> None:
    """Stopped, not waited for: the child sleeps ten minutes and writes down the SIGTERM."""
    command = [sys.executable, "-c", NEVER_LISTENS]
    log = tmp_path / "log"
    with (
        pytest.raises(process.DidNotStart, match=r"not listening .* warming up"),
        process.running(command, process.free_port(), log=log, ready_timeout=1.0),
    ):
        pass
    assert "stopped by SIGTERM" in log.read_text()


def test_sigterm_unwinds_like_ctrl_c_inside_terminating() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), process.terminating():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert signal.getsignal(signal.SIGTERM) == before
