"""Broken external programs in `toolcall matrix`: each costs its own column and bounded time.

Every program here is a few lines of Python written into `tmp_path` and run through the
subprocess protocol; each breaks it in one way a real program has (stops reading, closes its
output, floods standard error, prints a key, answers nothing). A test that would hang before its
fix runs the harness on a thread and fails when the thread is still busy after a generous bound.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness.cli import main
from toolcall.harness.matrix import run as matrix
from toolcall.harness.matrix.run import Matrix, Result
from toolcall.harness.matrix.verdict import Verdict
from toolcall.harness.peers import CHAT, Stream, external, http_clients
from toolcall.harness.peers.external import Crashed, External, StartFailed, TimedOut
from toolcall.harness.reports import matrix as matrix_report
from toolcall.harness.suite.case import Filters
from toolcall.harness.suite.cassettes import cassette_path, load, response_body
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "external_assembler.py"
#: How long a test waits for the harness before calling it hung (far above any bound it sets).
HANG = 60.0
#: The most lines a flooding program can have waiting: the allowance, and one read's worth.
FLOOD_BOUND = 16 + 64 * 1024 // 3

HANDSHAKE = (
    'print(json.dumps({"protocol": 2, "implementation": '
    '{"name": "t", "version": "1", "language": "python"}}), flush=True)'
)


def _write(tmp_path: Path, body: str) -> list[str]:
    """A program: it records its pid in `pids` (one line per start), then runs `body`."""
    program = tmp_path / "program.py"
    pids = tmp_path / "pids"
    program.write_text(
        "import json, os, sys, time\n"
        f"open({str(pids)!r}, 'a').write(str(os.getpid()) + '\\n')\n" + body,
        encoding="utf-8",
    )
    return [sys.executable, str(program)]


def _pids(tmp_path: Path) -> list[int]:
    path = tmp_path / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """`work()`'s result or exception; a failed test, not a hung one, when it takes longer."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the harness still waits after {seconds:g} s"
    return outcome[0]


def _body(provider: str, scenario: str) -> bytes:
    return response_body(load(cassette_path(ROOT / "cassettes", provider, scenario)))


# Writes, reads and exits are bounded.


@pytest.mark.slow
def test_a_program_that_stops_reading_cannot_hang_a_large_write(tmp_path: Path) -> None:
    stream = Stream(CHAT, _body("deepseek", "long_arguments"), {})
    assert len(json.dumps(stream.chunks)) > 800_000  # far more than a pipe holds
    program = External("deaf", _write(tmp_path, f"input()\n{HANDSHAKE}\ntime.sleep(600)\n"))
    program.timeout = 1.0
    outcome = _within(HANG, lambda: program.assemble(stream))
    assert isinstance(outcome, TimedOut), outcome
    assert "stopped reading its input" in str(outcome)
    assert all(_gone(pid) for pid in _pids(tmp_path))


@pytest.mark.slow
def test_a_program_that_closes_its_output_but_keeps_running_is_killed(tmp_path: Path) -> None:
    body = f"input()\n{HANDSHAKE}\ninput()\nos.close(1)\ntime.sleep(600)\n"
    program = External("mute", _write(tmp_path, body), timeout=5.0)
    outcome = _within(HANG, lambda: program.assemble(Stream(CHAT, b"", {})))
    assert isinstance(outcome, Crashed), outcome
    assert "closed its standard output but kept running (killed)" in str(outcome)
    assert all(_gone(pid) for pid in _pids(tmp_path))


def test_a_handshake_nested_too_deep_is_a_failed_start_without_an_orphan(tmp_path: Path) -> None:
    program = External("deep", _write(tmp_path, "input()\nprint('[' * 100_000, flush=True)\n"))
    outcome = _within(HANG, program.start)
    assert isinstance(outcome, StartFailed), outcome
    assert "nested too deep" in str(outcome)
    assert program.version.endswith(f"(no handshake: {outcome})")
    assert _pids(tmp_path) and all(_gone(pid) for pid in _pids(tmp_path))


def test_an_endless_line_is_cut_at_the_line_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(external, "MAX_LINE", 1024 * 1024)
    body = f"input()\n{HANDSHAKE}\ninput()\nsys.stdout.write('x' * 3_000_000)\ntime.sleep(600)\n"
    program = External("endless", _write(tmp_path, body), timeout=20.0)
    outcome = _within(HANG, lambda: program.assemble(Stream(CHAT, b"", {})))
    assert isinstance(outcome, Crashed), outcome
    assert "sent a line longer than 1,048,576 bytes" in str(outcome)
    assert all(_gone(pid) for pid in _pids(tmp_path))


@pytest.mark.slow
def test_an_output_flood_stops_being_read_a_few_lines_ahead(tmp_path: Path) -> None:
    body = f"input()\n{HANDSHAKE}\nwhile True: print('{{}}')\n"
    program = External("flood", _write(tmp_path, body), timeout=20.0)
    program.start()
    time.sleep(2.0)  # the harness busy elsewhere: nothing reads the program's lines meanwhile
    assert program._lines.qsize() <= 2 * FLOOD_BOUND
    outcome = _within(HANG, lambda: program.assemble(Stream(CHAT, b"", {})))
    assert isinstance(outcome, Crashed), outcome
    assert all(_gone(pid) for pid in _pids(tmp_path))


@pytest.mark.slow
def test_a_flood_of_long_lines_stops_being_read_a_few_megabytes_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixteen lines each just under `MAX_LINE` would be half a gigabyte: the bytes waiting are
    bounded too (scaled down here: 1 MiB waiting at most, lines of 256 KiB)."""
    monkeypatch.setattr(external, "MAX_UNREAD_BYTES", 1024 * 1024)
    line = 256 * 1024
    body = f"input()\n{HANDSHAKE}\nwhile True: print('x' * {line})\n"
    program = External("flood", _write(tmp_path, body), timeout=20.0)
    program.start()
    time.sleep(1.0)  # nothing reads the program's lines meanwhile
    waiting = program._lines.waiting_bytes
    assert waiting <= external.MAX_UNREAD_BYTES + 2 * line, f"{waiting:,} bytes waiting"
    outcome = _within(HANG, lambda: program.assemble(Stream(CHAT, b"", {})))
    assert isinstance(outcome, Crashed), outcome
    assert all(_gone(pid) for pid in _pids(tmp_path))


def test_a_stderr_flood_keeps_only_its_tail(tmp_path: Path) -> None:
    body = (
        "input()\n"
        "for _ in range(100_000): print('noise ' * 12, file=sys.stderr)\n"
        "print('ValueError: boom', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    program = External("flood", _write(tmp_path, body), timeout=30.0)
    outcome = _within(HANG, program.start)
    assert isinstance(outcome, StartFailed), outcome
    assert str(outcome) == "exit status 3: ValueError: boom"
    assert len(program._stderr) <= external.STDERR_TAIL


def test_the_programs_stderr_is_masked_like_the_recorders_messages(tmp_path: Path) -> None:
    configured = "plainKEYvalue0123456789abcdef"
    bearer = "sk-proj-" + "A1b2C3d4" * 4
    line = f"auth failed with {configured}, Authorization: Bearer {bearer}"
    body = f"input()\nprint({line!r}, file=sys.stderr)\nsys.exit(1)\n"
    program = External("leaky", _write(tmp_path, body), keys=[configured])
    outcome = _within(HANG, program.start)
    assert isinstance(outcome, StartFailed), outcome
    assert configured not in str(outcome) and bearer not in str(outcome)
    assert "<API_KEY>" in str(outcome) and "<REDACTED>" in str(outcome)


def _answering(answer: str) -> str:
    """A program body that shakes hands, then gives `answer` (Python text of a dict) to every
    stream, with the request's seq."""
    return (
        f"input()\n{HANDSHAKE}\n"
        "for line in sys.stdin:\n"
        "    seq = json.loads(line)['seq']\n"
        f"    print(json.dumps({{**{answer}, 'seq': seq}}), flush=True)\n"
    )


LEAKED = "sk-proj-" + "A1b2C3d4" * 4


@pytest.mark.parametrize(
    "answer",
    [
        # an error text that quotes the key, and runs for megabytes
        f"{{'error': 'refused: Bearer {LEAKED} ' + 'x' * 5_000_000}}",
        # a value the schema refuses, which its message quotes
        f"{{'tool_calls': 'Bearer {LEAKED}' + 'y' * 5_000_000}}",
    ],
    ids=["error-text", "schema-message"],
)
@pytest.mark.slow
def test_what_a_program_says_reaches_the_report_masked_and_cut(tmp_path: Path, answer: str) -> None:
    program = External("leaky", _write(tmp_path, _answering(answer)), timeout=20)
    suite = load_suite(ROOT)
    result = _within(
        HANG,
        lambda: matrix.run(
            suite, [program], filters=Filters(provider="glm", scenario="single_call")
        ),
    )
    assert isinstance(result, Matrix), result
    report = matrix_report.markdown(result) + json.dumps(matrix_report.document(result))
    assert LEAKED not in report and "<REDACTED>" in report
    assert len(report) < 100_000, f"the report is {len(report):,} characters"


def test_a_handshake_the_schema_rejects_stops_the_program(tmp_path: Path) -> None:
    body = 'input()\nprint(json.dumps({"protocol": 2}), flush=True)\ntime.sleep(600)\n'
    program = External("shapeless", _write(tmp_path, body))
    outcome = _within(HANG, program.start)
    assert isinstance(outcome, StartFailed), outcome
    assert "program sent a bad 'started'" in str(outcome)
    assert _pids(tmp_path) and all(_gone(pid) for pid in _pids(tmp_path))


# A broken program costs its own column only.


def test_a_program_that_fails_its_handshake_is_unavailable_not_a_column(tmp_path: Path) -> None:
    body = 'input()\nprint(json.dumps({"protocol": 2}), flush=True)\ntime.sleep(600)\n'
    program = External("shapeless", _write(tmp_path, body))
    suite = load_suite(ROOT)
    result = _within(HANG, lambda: matrix.run(suite, [program], filters=Filters(provider="glm")))
    assert isinstance(result, Matrix), result
    assert result.never_started == ["shapeless"]
    assert "bad 'started'" in result.unavailable["shapeless"]
    assert result.results == [] and result.implementations == []
    assert len(_pids(tmp_path)) == 1  # started once, not once per stream


@pytest.mark.slow
def test_a_silent_program_is_cut_off_after_a_few_timeouts(tmp_path: Path) -> None:
    body = f"input()\n{HANDSHAKE}\nfor line in sys.stdin: pass\n"
    program = External("silent", _write(tmp_path, body), timeout=0.3)
    suite = load_suite(ROOT)
    result = _within(HANG, lambda: matrix.run(suite, [program], filters=Filters(provider="openai")))
    assert isinstance(result, Matrix), result
    labels = [r.verdict.label for r in result.results]
    cut = matrix.CONSECUTIVE_TIMEOUTS
    assert len(labels) > cut + 3
    assert labels == ["crash"] * cut + [matrix.SKIPPED] * (len(labels) - cut)
    assert result.results[-1].verdict.reason == f"skipped: {cut} timeouts in a row"
    assert len(_pids(tmp_path)) == cut  # each timeout costs one start, no more
    text = matrix_report.text(result)
    assert f"SKIP silent: {len(labels) - cut} cells skipped: {cut} timeouts in a row" in text


@pytest.mark.slow
def test_a_slow_program_is_cut_off_at_the_column_budget(tmp_path: Path) -> None:
    body = (
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['cmd'] == 'start':\n"
        f"        {HANDSHAKE}\n"
        "    elif m['cmd'] == 'assemble':\n"
        "        time.sleep(0.3)\n"
        "        print(json.dumps({'seq': m['seq'], 'error': 'slow'}), flush=True)\n"
    )
    program = External("slow", _write(tmp_path, body), timeout=5.0)
    suite = load_suite(ROOT)
    result = _within(
        HANG,
        lambda: matrix.run(suite, [program], filters=Filters(provider="openai"), column_budget=0.5),
    )
    assert isinstance(result, Matrix), result
    labels = [r.verdict.label for r in result.results]
    judged = [label for label in labels if label != matrix.SKIPPED]
    assert 1 <= len(judged) <= 3 and labels[len(judged) :] == [matrix.SKIPPED] * (
        len(labels) - len(judged)
    )
    assert result.results[-1].verdict.reason == "skipped: the column's time budget is used up"


def test_a_lone_surrogate_in_names_and_messages_cannot_lose_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = (
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['cmd'] == 'start':\n"
        "        me = {'name': '\\ud800', 'version': '1', 'language': 'python'}\n"
        "        print(json.dumps({'protocol': 2, 'implementation': me}), flush=True)\n"
        "    elif m['cmd'] == 'assemble':\n"
        "        print(json.dumps({'seq': m['seq'], 'error': 'bad \\udfff'}), flush=True)\n"
    )
    command = shlex.join(_write(tmp_path, body))
    report, document = tmp_path / "matrix.md", tmp_path / "matrix.json"
    arguments = ["--root", str(ROOT), "matrix", "--provider", "glm", "--scenario", "single_call"]
    arguments += ["--implementation", "toolcall", "--external", f"odd\udcff={command}"]
    code = main([*arguments, "--markdown", str(report), "--json", str(document)])
    assert code == 0
    out = capsys.readouterr().out
    assert "odd\\udcff" in out and "\\ud800 1 (python)" in out
    assert "rejected a valid stream: bad \\udfff" in report.read_text(encoding="utf-8")
    assert json.loads(document.read_text(encoding="utf-8"))["implementations"][1]["name"] == (
        "odd\\udcff"
    )


# The command: where programs run, what it says, how it exits.


@pytest.mark.slow
def test_an_external_program_runs_in_the_callers_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(EXAMPLE, tmp_path / "prog.py")
    monkeypatch.chdir(tmp_path)
    arguments = ["--root", str(ROOT), "matrix", "--provider", "glm", "--scenario", "single_call"]
    code = main([*arguments, "--external", f"naive={shlex.quote(sys.executable)} prog.py"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "toolcall 1/1" in out and "naive 1/1" in out


@pytest.mark.slow
def test_a_program_that_never_starts_is_said_once_and_fails_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = shlex.join(_write(tmp_path, "print('debug: starting', flush=True)\ninput()\n"))
    arguments = ["--root", str(ROOT), "matrix", "--provider", "openai"]
    code = main([*arguments, "--implementation", "toolcall", "--external", f"chatty={command}"])
    captured = capsys.readouterr()
    assert code == 1
    said = "sent a line that is not JSON: 'debug: starting'"
    assert captured.out.count(said) == 1 and "FAIL chatty" not in captured.out
    assert captured.err.count(f"toolcall: chatty never started: {said}") == 1
    assert len(_pids(tmp_path)) == 1


def test_a_named_external_is_kept_beside_the_selected_implementations() -> None:
    naive = f"naive={shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE))}"
    implementations, _unavailable = matrix.roster(["toolcall"], [naive], timeout=5)
    assert [i.name for i in implementations] == ["toolcall", "naive"]


def test_progress_goes_to_stderr_per_implementation(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["--root", str(ROOT), "matrix", "--provider", "glm", "--scenario", "single_call"]
    assert main([*arguments, "--implementation", "toolcall"]) == 0
    err = capsys.readouterr().err
    assert "replaying the cassettes ... 1 streams" in err
    assert "[1/1] toolcall ... 1 streams, 1 passed, 0 s" in err


# The terminal report.


def test_the_terminal_table_fits_a_hundred_columns() -> None:
    names = [f"implementation-number-{n}" for n in range(9)]
    scenario = "published/vertex-docs_gemini-3.1-pro_stream_function_call_arguments"
    result = Matrix(implementations=[(name, "some-package 1.2.3 on Node v20") for name in names])
    for name in names:
        reason = "arguments differ for 'get_weather' at $.city: " + "x" * 200
        verdict = Verdict("arguments differ", reason)
        result.results.append(Result(name, "gemini", scenario, verdict))
    result.unavailable["langchain-core"] = "ModuleNotFoundError: " + "y" * 200
    text = matrix_report.text(result)
    assert max(len(line) for line in text.splitlines()) <= matrix_report.WIDTH
    assert "FAIL implementation-number-0 gemini/published/vertex-docs" in text
    assert "--markdown and --json write every name and reason whole" in text
    assert "x" * 200 in matrix_report.markdown(result)


def test_the_footer_says_which_client_runs_on_node() -> None:
    """The JavaScript client names, at its handshake, the package versions the lockfile pinned
    and the Node it runs on."""
    try:
        client = http_clients.openai_node()
    except http_clients.Unavailable as exc:
        pytest.skip(str(exc))
    lock = json.loads((http_clients.JS_CLIENTS / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/openai"]["version"]
    try:
        assert client.version.startswith(f"openai-node openai {pinned} on Node v")
        assert client.version.endswith("(javascript)")
    finally:
        client.close()
    result = Matrix(
        implementations=[("openai-sdk", "openai 3.60.0"), (client.name, client.version)]
    )
    versions = matrix_report.versions(result)
    assert f"openai-sdk: openai 3.60.0; openai-node: openai-node openai {pinned} on" in versions


def test_an_installed_package_does_not_advise_make_targets_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_clients.shutil, "which", lambda _name: "/usr/bin/node")
    monkeypatch.setattr(http_clients, "JS_CLIENTS", tmp_path / "site-packages" / "clients" / "js")
    with pytest.raises(http_clients.Unavailable) as raised:
        http_clients.openai_node()
    assert "make matrix" not in str(raised.value) and "npm ci" not in str(raised.value)
    assert "come with a checkout of the toolcall repository" in str(raised.value)
