"""What the protocol tells a program and what a program's crash tells its reader.

The `assemble` message names its case; a handshake may say what glue the column adds around the
library it checks, and every report shows it; a program that crashes is shown from the first line
of its panic, traceback or uncaught error, bounded, with real crashing programs in Python, Go and
Node; one that exits without a word after a long line is told why that is likely.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolcall.harness.matrix import run as matrix
from toolcall.harness.peers import CHAT, Stream
from toolcall.harness.peers.external import (
    CRASH_HEAD,
    Crashed,
    External,
    StartFailed,
    assemble_message,
    crash_start,
)
from toolcall.harness.reports import matrix as matrix_report
from toolcall.harness.suite.case import Filters
from toolcall.harness.suite.profiles import format_schema, load_suite

ROOT = Path(__file__).resolve().parents[1]
BODY = b'data: {"choices":[{"index":0,"delta":{}}]}\n\n'

HELLO = {
    "protocol": 3,
    "implementation": {"name": "t", "version": "1", "language": "python"},
    "wires": ["chat"],
}


def _python(body: str, hello: dict[str, object] = HELLO) -> list[str]:
    """A protocol-3 program: it answers the handshake with `hello`, then runs `body` (Python,
    with `m` the first assemble message) for the first stream."""
    code = (
        "import json, sys\n"
        f"print(json.dumps({hello!r}), flush=True)\n"
        "sys.stdin.readline()\n"
        "m = json.loads(sys.stdin.readline())\n"
        f"{body}\n"
    )
    return [sys.executable, "-c", code]


def _crash(command: list[str], stream: Stream | None = None) -> str:
    program = External("p", command, timeout=20)
    try:
        with pytest.raises(Crashed) as raised:
            program.assemble(stream or Stream(CHAT, BODY, {}, case="openai/single_call"))
    finally:
        program.close()
    return str(raised.value)


# -- the case id -------------------------------------------------------------------------------


def test_the_assemble_message_names_its_case() -> None:
    """The program echoes what it was sent back as its error: the case id arrives as given."""
    echo = 'print(json.dumps({"seq": m["seq"], "error": m.get("case", "<none>")}), flush=True)'
    program = External("p", _python(echo + "\nsys.stdin.readline()"), timeout=20)
    try:
        named = program.assemble(Stream(CHAT, BODY, {}, case="gemini/parallel_calls"))
    finally:
        program.close()
    assert named.error == "gemini/parallel_calls"


def test_a_stream_outside_a_run_of_cases_is_sent_without_a_case() -> None:
    assert "case" not in assemble_message(Stream(CHAT, BODY, {}), 1)
    message = assemble_message(Stream(CHAT, BODY, {}, case="openai/single_call"), 7)
    assert message["case"] == "openai/single_call" and message["seq"] == 7


def test_the_schema_takes_case_and_glue_and_refuses_them_empty() -> None:
    schema = format_schema("protocol.schema.json")
    defs = schema["$defs"]

    def valid(kind: str, message: dict[str, object]) -> bool:
        validator = Draft202012Validator({"$ref": f"#/$defs/{kind}", "$defs": defs})
        return validator.is_valid(message)

    message = assemble_message(Stream(CHAT, BODY, {}, case="openai/single_call"), 1)
    assert valid("assemble", message)
    assert not valid("assemble", {**message, "case": ""})
    assert valid("started", {**HELLO, "glue": "checks finish_reason length itself"})
    assert not valid("started", {**HELLO, "glue": ""})
    assert not valid("started", {**HELLO, "glue": 3})


# -- glue --------------------------------------------------------------------------------------


def test_a_column_that_says_it_adds_glue_shows_it_in_every_report() -> None:
    glue = "checks finish_reason length itself"
    hello = {**HELLO, "glue": glue}
    answer = 'print(json.dumps({"seq": m["seq"], "tool_calls": []}), flush=True)'
    program = External("wrapped", _python(answer + "\nsys.stdin.readline()", hello), timeout=20)
    assert program.glue == glue
    suite = load_suite(ROOT)
    result = matrix.run(suite, [program], filters=Filters(case="openai-text_only"))
    assert result.glue == {"wrapped": glue}
    assert f"glue     {glue}" in matrix_report.text(result)
    assert f"| wrapped | t 1 (python); with glue: {glue} | 1/1 |" in matrix_report.markdown(result)
    document = matrix_report.document(result)
    assert document["implementations"][0]["glue"] == glue
    schema = json.loads((ROOT / "toolcall/schemas/reports.schema.json").read_text("utf-8"))
    Draft202012Validator(schema).validate(document)


def test_a_column_without_glue_says_nothing_of_it() -> None:
    answer = 'print(json.dumps({"seq": m["seq"], "tool_calls": []}), flush=True)'
    program = External("plain", _python(answer + "\nsys.stdin.readline()"), timeout=20)
    suite = load_suite(ROOT)
    result = matrix.run(suite, [program], filters=Filters(case="openai-text_only"))
    assert result.glue == {}
    assert "glue" not in matrix_report.text(result) + matrix_report.markdown(result)
    assert matrix_report.document(result)["implementations"][0]["glue"] == ""


# -- crashes -----------------------------------------------------------------------------------


def test_a_python_traceback_is_kept_from_its_first_line() -> None:
    """A log line before the crash is not part of it; the traceback is, down to the error."""
    body = (
        "print('assembling', m['case'], file=sys.stderr, flush=True)\n"
        "def reader(events):\n"
        "    return events['missing']\n"
        "reader({})"
    )
    said = _crash(_python(body))
    assert said.startswith("exit status 1: Traceback (most recent call last): | ")
    assert said.endswith(", in reader | KeyError: 'missing'")
    assert "assembling" not in said


def test_a_long_crash_report_is_bounded_and_keeps_its_first_and_last_lines() -> None:
    """A Go panic with a long goroutine dump, or a deep Python traceback: the verdict holds the
    report's first 2 KiB and its last line, not 100 KB."""
    body = (
        "sys.stderr.write('noise\\n' * 5000)\n"
        "sys.stderr.write('panic: assignment to entry in nil map\\n\\n')\n"
        "sys.stderr.write(''.join(f'goroutine {n} [running]:\\n\\tmain.go:{n}\\n' "
        "for n in range(5000)))\n"
        "sys.stderr.write('exit status 2 is near\\n')\n"
        "sys.exit(2)"
    )
    said = _crash(_python(body))
    assert said.startswith("exit status 2: panic: assignment to entry in nil map | goroutine 0")
    assert said.endswith("| ... | exit status 2 is near")
    assert CRASH_HEAD < len(said) < CRASH_HEAD + 500
    assert "noise" not in said


@pytest.mark.parametrize(
    ("line", "strength"),
    [
        ("panic: assignment to entry in nil map", 2),
        ("fatal error: all goroutines are asleep - deadlock!", 2),
        ("Fatal Python error: Segmentation fault", 2),
        ("Traceback (most recent call last):", 2),
        ("TypeError: Cannot read properties of undefined (reading 'push')", 1),
        ("Error [ERR_STREAM_DESTROYED]: Cannot call write after a stream was destroyed", 1),
        ("[UnhandledPromiseRejection: This error originated either by throwing", 1),
        ("    at Interface.<anonymous> (file:///x/crash.mjs:10:9)", 0),
        ("Node.js v20.20.2", 0),  # the last line Node writes: never the reason
        ("assemble-go: openai-single_call: 1 call(s)", 0),
        ("2026/12/06 log: Error: retrying", 0),
    ],
)
def test_the_lines_that_begin_a_crash_report(line: str, strength: int) -> None:
    assert crash_start(line) == strength


def test_a_crash_without_a_report_shows_the_last_line_as_before() -> None:
    said = _crash(_python("sys.stderr.write('first\\nthe reason\\n')\nsys.exit(3)"))
    assert said == "exit status 3: the reason"


def test_a_silent_exit_after_a_long_line_says_why_that_is_likely() -> None:
    """A Go program reading with a default bufio.Scanner stops at 64 KiB and exits 0."""
    stream = Stream(CHAT, b"data: " + json.dumps({"x": "a" * 70_000}).encode() + b"\n\n", {})
    said = _crash(_python("sys.exit(0)"), stream)
    assert said.startswith("exit status 0: it was sent a line of ")
    assert "64 KiB (Go's bufio.Scanner)" in said and "docs/PROTOCOL.md" in said


def test_a_log_line_before_the_handshake_means_the_program_never_starts() -> None:
    """What docs/PROTOCOL.md says of standard output, as the program is told it."""
    code = "import sys\nprint('starting up')\nsys.stdin.read()"
    program = External("p", [sys.executable, "-c", code], timeout=20)
    with pytest.raises(StartFailed, match="sent a line that is not JSON: 'starting up'"):
        program.start()
    protocol = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert "sent a line that is not JSON: '...'" in protocol


NODE_CRASH = """
import { createInterface } from "node:readline";
let seen = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (seen++ === 0) {
    const me = { name: "t", version: "1", language: "javascript" };
    console.log(JSON.stringify({ protocol: 3, implementation: me, wires: ["chat"] }));
    continue;
  }
  console.error("assembling", JSON.parse(line).case);
  const calls = undefined;
  calls.push(line);
}
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_an_uncaught_node_error_is_kept_with_its_stack(tmp_path: Path) -> None:
    program = tmp_path / "crash.mjs"
    program.write_text(NODE_CRASH, encoding="utf-8")
    said = _crash(["node", str(program)])
    assert said.startswith("exit status 1: TypeError: Cannot read properties of undefined")
    assert f"at file://{program}:" in said
    assert "assembling" not in said


GO_CRASH = """package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	in.ReadBytes('\\n')
	me := `{"name": "t", "version": "1", "language": "go"}`
	fmt.Println(`{"protocol": 3, "implementation": ` + me + `, "wires": ["chat"]}`)
	in.ReadBytes('\\n')
	fmt.Fprintln(os.Stderr, "assembling")
	var calls map[int]string
	calls[0] = "get_weather"
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed (golang-go)")
def test_a_go_panic_is_kept_from_its_first_line(tmp_path: Path) -> None:
    """The issue's own case: the message was lost behind `main.go:54 +0xb45`."""
    (tmp_path / "main.go").write_text(GO_CRASH, encoding="utf-8")
    binary = tmp_path / "crash"
    build = ["go", "build", "-o", str(binary), "main.go"]
    subprocess.run(build, cwd=tmp_path, check=True, capture_output=True, timeout=300)
    said = _crash([str(binary)])
    assert said.startswith("exit status 2: panic: assignment to entry in nil map | ")
    assert "goroutine 1 [running]: | main.main() | " in said
    assert f"{tmp_path}/main.go:17 +0x" in said
    assert "assembling" not in said
