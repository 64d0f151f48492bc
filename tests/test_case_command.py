"""`toolcall case` and the case filters of `toolcall matrix`, run as docs/HARNESS.md shows them:
one case's provenance, expectation, events, bytes and protocol message, and a matrix narrowed to
one wire, one provider a report shows, or a glob of case ids."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolcall.harness.cli import main
from toolcall.harness.peers.external import assemble_message
from toolcall.harness.suite.case import find
from toolcall.harness.suite.profiles import format_schema, load_suite

ROOT = Path(__file__).resolve().parents[1]
HARNESS = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
SECTION = HARNESS.split("## One case at a time", 1)[1].split("\n## ", 1)[0]
PROGRAM = ".venv/bin/toolcall "


def documented() -> list[list[str]]:
    """The commands of the section's shell block, each as its words after the program."""
    found = re.search(r"```sh\n(.+?)```", SECTION, re.DOTALL)
    assert found is not None, "docs/HARNESS.md's toolcall case recipe moved"
    lines = [line for line in found.group(1).splitlines() if line.strip()]
    assert all(line.startswith(PROGRAM) for line in lines)
    return [shlex.split(line.removeprefix(PROGRAM)) for line in lines]


def run(capsys: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, str]:
    code = main(["--root", str(ROOT), *argv])
    out, err = capsys.readouterr()
    return code, out, err.decode()


@pytest.mark.slow  # every case listed, some read
def test_the_documented_commands_show_the_case_as_the_harness_sees_it(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    listing, shown, protocol, body, narrowed = documented()
    suite = load_suite(ROOT)

    code, out, _ = run(capsysbinary, *listing)
    listed = out.decode().splitlines()
    assert code == 0 and len(listed) == 7  # six scenarios (one left out) and a cut
    assert all(line.startswith("deepseek@anthropic-") for line in listed)

    code, out, _ = run(capsysbinary, *shown)
    text = out.decode()
    assert code == 0
    for line in (
        "kind       cell",
        "wire       anthropic",
        "provider   deepseek",
        "route      direct",
        "source     cassettes/deepseek/wires/anthropic/parallel_calls.yaml",
        "  kind: synthesized",
        "expected   2 call(s)",
        "  and the scenario's expect schema (scenarios.yaml) holds for the turn",
    ):
        assert line in text.splitlines(), text
    assert re.search(r"^stream     \d+ bytes, \d+ events$", text, re.MULTILINE), text
    assert '    1 {"type": "message_start"' in text

    code, out, _ = run(capsysbinary, *protocol)
    (line,) = out.decode().splitlines()
    message = json.loads(line)
    case = find(suite, protocol[1])
    assert code == 0 and message == assemble_message(case.stream, 1)
    assert message["wire"] == "anthropic" and message["events"] == case.stream.events
    schema = format_schema("protocol.schema.json")
    validator = Draft202012Validator({"$ref": "#/$defs/assemble", "$defs": schema["$defs"]})
    assert list(validator.iter_errors(message)) == []

    code, out, _ = run(capsysbinary, *body)
    assert code == 0 and out == find(suite, body[1]).body and out.startswith(b'{"model"')

    code, out, _ = run(capsysbinary, *narrowed)
    text = out.decode()
    assert code == 0, text
    assert "passed: toolcall 6/6" in text and "deepseek@anthropic" in text
    assert "deepseek@responses" not in text


@pytest.mark.slow  # every case listed, some read
def test_a_recording_shows_its_provenance_and_a_cut_its_source(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, _ = run(
        capsysbinary, "case", "wires/gemini/llm-gemini_gemini-2.5-flash_tools_json-array"
    )
    text = out.decode()
    assert code == 0
    assert "provider   google-gemini-api (offered by gemini)" in text
    assert "framing    json-array" in text and "    repository: simonw/llm-gemini" in text
    assert "expected   1 call(s)" in text
    cut = "anthropic@anthropic-anthropic/fantasy_claude-sonnet-4_multi_tool_truncated"
    code, out, _ = run(capsysbinary, "case", cut, "--events", "0")
    text = out.decode()
    assert code == 0
    assert "  cut_from: cassettes/wires/anthropic/fantasy_claude-sonnet-4_multi_tool.sse" in text
    assert "expected   the cut reported: an error, not calls (the stream says stop_reason" in text
    assert "more (--events 0" not in text


def test_a_case_that_does_not_apply_says_why_and_has_no_bytes(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, _ = run(capsysbinary, "case", "openai@responses-text_only")
    assert code == 0 and "status     not applicable: left out: " in out.decode()
    code, out, err = run(capsysbinary, "case", "openai@responses-text_only", "--body")
    assert code == 1 and out == b"" and "is not applicable" in err


def test_an_unknown_case_is_one_line_with_the_nearest_ids(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, err = run(capsysbinary, "case", "deepseek@antropic-single_call")
    assert code == 2 and out == b""
    (line,) = err.splitlines()
    assert line.startswith("toolcall: no case has the id 'deepseek@antropic-single_call'; ")
    assert "nearest: deepseek@anthropic-single_call" in line
    code, _, err = run(capsysbinary, "case")
    assert code == 2 and "give a case's id, or --list" in err


@pytest.mark.slow  # the reference over every stream of a wire
def test_the_matrix_narrows_to_one_wire_and_to_a_provider_only_a_report_names(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The synthesized cassettes of a wire reach its implementations, beside its recordings and
    cut-off variants; `anthropic`, the provider of its recordings, is a provider to narrow by."""
    code, out, err = run(
        capsysbinary, "matrix", "--wire", "anthropic", "--implementation", "toolcall"
    )
    text = out.decode()
    assert code == 0, err
    # Five recordings and four cuts of them; DeepSeek's and Qwen's cells synthesized on
    # Anthropic (one each left out) and the cut of each one's long_arguments.
    assert "passed: toolcall 21/21" in text
    rows = {line.split()[0] for line in text.splitlines() if "@anthropic " in line}
    assert rows == {"deepseek@anthropic", "qwen@anthropic"}
    code, out, err = run(
        capsysbinary, "matrix", "--provider", "anthropic", "--implementation", "toolcall"
    )
    assert code == 0, err
    assert "passed: toolcall 9/9" in out.decode()


@pytest.mark.slow  # every case listed, some read
def test_the_matrix_refuses_a_filter_that_names_nothing_in_one_line(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    for option, value, said in [
        ("--provider", "nobody", "toolcall: unknown provider 'nobody'; known: ["),
        ("--wire", "pigeon", "toolcall: unknown wire 'pigeon'; known: ["),
        ("--case", "nothing-*", "toolcall: no case has the pattern 'nothing-*'"),
    ]:
        code, out, err = run(capsysbinary, "matrix", option, value, "--implementation", "toolcall")
        assert code == 2 and out == b""
        (line,) = err.splitlines()
        assert line.startswith(said), line


@pytest.mark.slow  # the conformance checks of seven cases
def test_conformance_narrows_by_the_same_filters(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, err = run(capsysbinary, "conformance", "--case", "qwen@anthropic-*")
    text = out.decode()
    assert code == 0, text + err
    assert text.splitlines()[-1] == "6 passed, 0 failed, 1 not applicable"
    code, out, err = run(
        capsysbinary, "conformance", "--kind", "wire-recording", "--wire", "ollama"
    )
    assert code == 0, err
    assert out.decode().splitlines()[-1].endswith("published recordings: 2 of 2 passed")
    code, out, err = run(capsysbinary, "conformance", "--kind", "recording")
    assert code == 2 and out == b""
    assert err.startswith("toolcall: unknown kind 'recording'; known: ['cell', 'cut', ")
