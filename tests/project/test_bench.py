"""`make bench` must keep working: a smoke run on small streams, its report read back.

Times are never asserted here (they belong to the bench's own report, as ratios measured in the
same run); this checks that every shape, every column of ours, the growth rows, the memory rows
and the targets are produced, so a change that breaks the bench fails `make test`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolcall

ROOT = Path(__file__).resolve().parents[2]
WIRE_RECORDINGS = ROOT / "cassettes" / "wires"
sys.path.insert(0, str(ROOT / "benchmarks"))
import shapes  # noqa: E402  (the bench's own module, not a package)
import wire_peers  # noqa: E402

WIRES = shapes.WIRES
#: The wires whose bench shape follows a recording in cassettes/wires/ (chat's is the chunk
#: envelope of the chat rows, with `obfuscation`).
OTHER_WIRES = [wire for wire in WIRES if wire != "chat"]
SIZES = ("1 KB", "64 KB", "256 KB", "1 MB")


@pytest.mark.slow  # a whole quick bench run
def test_the_bench_runs_every_shape_and_reports_its_targets(tmp_path: Path) -> None:
    report = tmp_path / "bench.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench.py"),
            "--quick",
            "--no-peers",
            "--repeat",
            "1",
            "--markdown",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = report.read_text(encoding="utf-8")
    for shape in (
        "| 2 KB |",
        "| 8 calls x 8 KB |",
        "| 64 calls x 1 KB |",
        "| 64 KB obfuscation |",
        "| 256 KB text |",
        "| 256 KB reasoning + call |",
        "| 64 whole calls, no index |",
        *(f"| {wire} {size} |" for wire in WIRES for size in SIZES),
    ):
        assert shape in text, shape
    header = text.splitlines()[0]
    for column in ("whole", "live", "events", "partial", "view"):
        assert f" {column} |" in header, column
    assert "| name in 1-char fragments | 4x |" in text
    assert "| extra_content, one key a delta | 4x |" in text
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines()}
    for wire in WIRES:
        for column in ("live", "events", "view"):
            assert f"| {wire} 256 KB -> 1 MB, {column} | 4x |" in text, (wire, column)
        # Memory is judged on the text Python stores two bytes a character (no emoji).
        for column in ("live", "events"):
            assert f"| peak memory, {wire} 1 MB, {column}, BMP text (x UTF-8) |" in text
        limit = "1.5" if wire in shapes.WHOLE_CALL_WIRES else "1"
        for size in SIZES:
            assert f"| {wire} {size}: live | " in text
            assert f"(target <= {limit}) |" in rows[f"{wire} {size}: live"]
        # Every wire's view is measured, at every size: its cell is a ratio or over budget.
        cells = [_cells(rows[f"{wire} {size}"]) for size in SIZES]
        view = _cells(header).index("view")
        assert all(row[view].endswith("x") or row[view] == ">budget" for row in cells), wire
    assert "| target | measured | met |" in text


@pytest.mark.slow
def test_the_bench_compares_line_ends_on_every_wire(tmp_path: Path) -> None:
    report = tmp_path / "line-ends.md"
    bench = str(ROOT / "benchmarks" / "bench.py")
    done = subprocess.run(
        [sys.executable, bench, "--line-ends", "--quick", "--repeat", "1", "--markdown", report],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = report.read_text(encoding="utf-8")
    assert text.splitlines()[0] == (
        "| wire | size | live LF | live CRLF | whole LF | whole CRLF | memory LF | memory CRLF |"
    )
    for wire in WIRES:
        for size in ("64 KB", "1 MB"):
            row = _cells(next(line for line in text.splitlines() if f"| {wire} | {size} |" in line))
            figures = row[2:] if size == "1 MB" else row[2:6]
            assert all(re.fullmatch(r"\d+\.\d+x", cell) for cell in figures), row


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


@pytest.mark.slow
def test_the_bench_says_its_progress_fits_a_terminal_and_explains_a_miss() -> None:
    bench = str(ROOT / "benchmarks" / "bench.py")
    done = subprocess.run(
        [sys.executable, bench, "--quick", "--no-peers", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    count = 9 + len(WIRES) * len(SIZES)
    assert f"[1/{count}] 2 KB ... " in done.stderr
    assert f"[{count}/{count}] ollama 1 MB ... " in done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 100
    assert "targets: " in done.stdout
    # A miss is explained and points to the figures of record; no miss, no explanation.
    assert ("  MISS  " in done.stdout) == ("docs/SPEED.md" in done.stdout)


#: The recording each wire's bench shape follows, and the wire its body is in.
FOLLOWS = {
    "chat": ("", "chat"),
    "responses": ("responses/fantasy_responses_gpt-5_multi_tool.sse", "responses"),
    "anthropic": ("anthropic/fantasy_claude-sonnet-4_multi_tool.sse", "anthropic"),
    "gemini": ("gemini/fantasy_gemini-3-pro-preview_multi_tool.sse", "gemini"),
    "vertex": (
        "gemini/vercel-ai_vertex_gemini-3.1-pro-preview_partialArgs_parallel.jsonl",
        "gemini",
    ),
    "ollama": ("ollama/fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool.ndjson", "ollama"),
}


@pytest.mark.parametrize("shape", WIRES)
def test_each_wire_shape_is_a_body_the_library_reads_to_the_call_it_carries(shape: str) -> None:
    """Whole, fed one event at a time, and detected without `wire=`: one call, `write`, whose
    arguments are the generated object, and a payload per event for the floor to decode."""
    size = 3000
    stream = shapes.wire_call(shape, size)
    wire = FOLLOWS[shape][1]
    assert stream.wire == wire
    expected = json.loads(shapes.argument_text(size, 0))
    for turn in (
        toolcall.assemble(stream.body, wire=wire),
        toolcall.assemble(stream.body, json_backend="stdlib"),
    ):
        assert [call.function.name for call in turn.tool_calls] == ["write"]
        assert list(turn.arguments) == [expected]
    builder = toolcall.TurnBuilder(events=False)
    for event in stream.events:
        builder.feed(event)
    (done,) = builder.finish()
    assert builder.wire == wire
    assert isinstance(done, toolcall.TurnDone) and list(done.turn.arguments) == [expected]
    # Chat's `data: [DONE]` is an event with no payload for the floor to decode.
    assert len(stream.events) == len(stream.payloads) + (wire == "chat")
    assert all(isinstance(json.loads(payload), dict) for payload in stream.payloads)


def _keys(value: object, path: str = "") -> set[str]:
    """Every key path in a JSON value (list positions dropped), to compare structures."""
    if isinstance(value, dict):
        found = set()
        for key, item in value.items():
            found |= {f"{path}.{key}"} | _keys(item, f"{path}.{key}")
        return found
    if isinstance(value, list):
        return set().union(*(_keys(item, path) for item in value)) if value else set()
    return set()


def _payloads(raw: bytes) -> list[object]:
    lines = [line.removeprefix(b"data:").strip() for line in raw.splitlines()]
    return [json.loads(line) for line in lines if line.startswith((b"{", b"["))]


@pytest.mark.parametrize("shape", OTHER_WIRES)
def test_each_wire_shape_uses_only_the_fields_of_the_recording_it_follows(shape: str) -> None:
    """The generator invents no field: every key path it writes outside the arguments is one
    the recording it names has (the arguments' own keys are the generated object's)."""
    recording = _payloads((WIRE_RECORDINGS / FOLLOWS[shape][0]).read_bytes())
    known = set().union(*(_keys(event) for event in recording))
    stream = shapes.wire_call(shape, 64)
    argument_keys = {".text"}
    written = set().union(*(_keys(json.loads(payload)) for payload in stream.payloads))
    invented = {key for key in written if not any(key.endswith(a) for a in argument_keys)}
    assert invented <= known, sorted(invented - known)


@pytest.mark.parametrize("shape", OTHER_WIRES)
def test_each_wire_shape_ends_its_lines_as_its_recordings_do(shape: str) -> None:
    """Google's SSE ends every line with CRLF, the others' recordings with LF; a recording of
    chunks (`.jsonl`) shows no line ends, and its shape keeps LF. Each stream's events are its
    body cut after their blank line (a line, on NDJSON), their line ends with them."""
    recording = (WIRE_RECORDINGS / FOLLOWS[shape][0]).read_bytes()
    stream = shapes.wire_call(shape, 3000)
    crlf = b"\r\n" in recording and not FOLLOWS[shape][0].endswith(".jsonl")
    assert (stream.line_end == "\r\n") == crlf
    assert stream.body.count(b"\n") == stream.body.count(stream.line_end.encode())
    assert b"".join(stream.events) == stream.body
    for end in ("\n", "\r\n"):
        other = shapes.wire_call(shape, 3000, line_end=end)
        assert other.payloads == stream.payloads
        assert (
            b"".join(other.events)
            == other.body
            == stream.body.replace(stream.line_end.encode(), end.encode())
        )


def test_the_anthropic_shape_is_padded_as_recorded() -> None:
    """Anthropic's own API pads events with 0 to 15 spaces before the closing brace, a varying
    number (the recordings say so); the shape does the same, so the bench sees what it costs."""

    def paddings(payloads: list[str]) -> list[int]:
        return [len(p) - len(p[:-1].rstrip(" ")) - 1 for p in payloads if p.endswith(" }")]

    recorded = [
        line.removeprefix("data: ")
        for path in sorted((WIRE_RECORDINGS / "anthropic").glob("*.sse"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("data: ")
    ]
    stream = shapes.wire_call("anthropic", 3000)
    ours, theirs = paddings(stream.payloads), paddings(recorded)
    assert theirs and max(theirs) <= 15
    assert len(ours) > len(stream.payloads) / 2
    assert set(ours) <= set(range(1, 16)) and len(set(ours)) > 10


def test_the_responses_shape_varies_its_obfuscation_as_recorded() -> None:
    stream = shapes.wire_call("responses", 3000)
    values = [json.loads(p).get("obfuscation") for p in stream.payloads]
    values = [value for value in values if value is not None]
    assert len({len(value) for value in values}) > 10 and len(set(values)) > len(values) / 2
    assert all(value.isalnum() or value == "" for value in values)


@pytest.mark.slow
@pytest.mark.parametrize("shape", OTHER_WIRES)
def test_each_wire_sdk_the_bench_runs_gives_the_call_it_is_fed(shape: str) -> None:
    """The wire SDKs the bench times, on a small stream: each gives the library's call, except
    google-genai on Vertex's streamed arguments, which it leaves to its user to assemble."""
    sdks, unavailable = wire_peers.load(True)
    runs = [sdk for sdk in sdks if sdk.wire == shape]
    if not runs:
        pytest.skip(f"no SDK installed for {shape}: {unavailable}")
    stream = shapes.wire_call(shape, 3000)
    expected = [("write", json.loads(shapes.argument_text(3000, 0)))]
    for sdk in runs:
        answer = sdk.run(stream.payloads)
        assert (answer == expected) == (shape != "vertex"), sdk.name
