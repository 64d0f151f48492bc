"""Every wire recording in the conformance suite: a `provider@wire` row, its findings named.

The checker is the harness's (`harness.checks`); these tests break one recording at a time
in a copy of the suite and read what `toolcall conformance` says about it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import toolcall
from toolcall.harness.checks import check_recording, cross_wire
from toolcall.harness.cli import main
from toolcall.harness.reports import conformance as conformance_report
from toolcall.harness.suite.profiles import format_schema, load_suite
from toolcall.harness.suite.recordings import discover, selected

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = Draft202012Validator(format_schema("reports.schema.json"))
NAME = "fantasy_responses_gpt-4o_multi_tool"


def test_every_wire_recording_passes_in_its_provider_at_wire_row() -> None:
    suite = load_suite(ROOT)
    outcomes = [
        check_recording(suite, r)
        for r in [r for r in discover(suite.cassettes) if r.wire != "chat"]
    ]
    assert [o.failure() for o in outcomes if o.status != "pass"] == []
    rows = {o.row for o in outcomes}
    assert {"openai@responses", "deepseek@responses", "gemini@gemini"} <= rows
    assert {"anthropic@anthropic", "ollama-cloud@ollama", "lmstudio@responses"} <= rows
    matrix = conformance_report.text(outcomes)
    assert "openai@responses" in matrix and "5/5" in matrix  # 3 recordings, 2 synthesized
    assert "lmstudio@responses" in matrix and "2/2 (self-hosted only)" in matrix


def test_provider_filter_selects_the_recordings_its_wires_name() -> None:
    suite = load_suite(ROOT)
    assert {r.name for r in selected(suite, "deepseek") if r.wire != "chat"} == {
        "pydantic-ai_deepseek-v4-flash_responses_function_tool_stream",
        "vercel-ai_deepseek-v4-flash_responses_tool-call",
    }


def _run(root: Path, tmp_path: Path, provider: str = "openai") -> tuple[int, dict[str, dict]]:
    target = tmp_path / "out.json"
    code = main(["--root", str(root), "conformance", "--provider", provider, "--json", str(target)])
    document = json.loads(target.read_text(encoding="utf-8"))
    assert list(VALIDATOR.iter_errors(document)) == []
    return code, {_key(o): o for o in document["outcomes"]}


def _key(outcome: dict) -> str:
    """A scenario's name, or `<wire>/<scenario>` for its synthesized twin on another wire."""
    scenario = outcome["scenario"]
    if outcome["wire"] == "chat" or scenario.startswith("wires/"):
        return str(scenario)
    return f"{outcome['wire']}/{scenario}"


@pytest.mark.slow
def test_the_json_report_gives_each_wire_recording_its_wire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, outcomes = _run(ROOT, tmp_path)
    assert code == 0
    wire = outcomes[f"wires/responses/{NAME}"]
    assert (wire["provider"], wire["wire"], wire["status"]) == ("openai", "responses", "pass")
    assert wire["evidence"] == "first-party"
    assert outcomes["parallel_calls"]["wire"] == "chat"
    assert outcomes["responses/parallel_calls"]["status"] == "pass"
    assert "openai@responses" in capsys.readouterr().out


@pytest.mark.slow
def test_a_wrong_expectation_fails_with_its_path_and_the_file_to_correct(
    suite_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = suite_copy / "cassettes" / "wires" / "responses" / f"{NAME}.expected.json"
    expected = json.loads(path.read_text(encoding="utf-8"))
    expected["tool_calls"][1]["name"] = "divide"
    path.write_text(json.dumps(expected), encoding="utf-8")
    code, outcomes = _run(suite_copy, tmp_path)
    assert code == 1
    failed = outcomes[f"wires/responses/{NAME}"]
    assert failed["status"] == "fail"
    assert failed["findings"][0] == {
        "check": "expected",
        "path": "$.tool_calls[1].name",
        "declared": "divide",
        "observed": "multiply",
    }
    out = capsys.readouterr().out
    assert f"FAIL openai@responses/wires/responses/{NAME}: expected $.tool_calls[1].name" in out
    assert f"edit cassettes/wires/responses/{NAME}.expected.json" in out


def test_a_changed_body_and_an_unnamed_recording_are_findings(
    suite_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = suite_copy / "cassettes" / "wires" / "responses" / f"{NAME}.sse"
    body.write_bytes(body.read_bytes().replace(b'"add"', b'"sum"'))
    providers = suite_copy / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    providers.write_text(text.replace(f"[{NAME}, ", "["), encoding="utf-8")
    suite = load_suite(suite_copy)
    (recording,) = [
        r for r in [r for r in discover(suite.cassettes) if r.wire != "chat"] if r.name == NAME
    ]
    outcome = check_recording(suite, recording)
    checks = [f.check for f in outcome.findings]
    assert checks[0] == "verbatim" and "expected" in checks and checks[-1] == "profile"
    assert outcome.row == "openai@responses"  # the provenance's provider, when no offer names it
    capsys.readouterr()


def test_the_declared_cross_wire_pairs_give_the_same_turn_ids_aside() -> None:
    suite = load_suite(ROOT)
    pairs = {(o.row, w, c) for o in suite.wire_offers for w, c in o.same_request.items()}
    assert {row for row, _w, _c in pairs} == {"openai@responses", "gemini@gemini"}
    assert len(pairs) == 3
    by_name = {r.name: r for r in [r for r in discover(suite.cassettes) if r.wire != "chat"]}
    for offer in suite.wire_offers:
        for name in offer.same_request:
            turn = toolcall.assemble(by_name[name].body())
            assert cross_wire.findings(suite, offer, name, turn) == []


def test_a_pair_whose_turns_differ_is_a_cross_wire_finding(suite_copy: Path) -> None:
    providers = suite_copy / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    text = text.replace(
        f"{NAME}: fantasy_gpt-4o_multi_tool_streaming",
        f"{NAME}: pydantic-ai_gpt-4o-mini_tool-call_stream",
    ).replace(
        "fantasy_responses_gpt-5_multi_tool: fantasy_gpt-5_multi_tool",
        "fantasy_responses_gpt-5_multi_tool: no_such_recording",
    )
    providers.write_text(text, encoding="utf-8")
    suite = load_suite(suite_copy)
    by_name = {r.name: r for r in [r for r in discover(suite.cassettes) if r.wire != "chat"]}
    outcome = check_recording(suite, by_name[NAME])
    assert outcome.status == "fail"
    first = outcome.findings[0]
    assert first.check == "cross-wire"
    assert first.path.startswith(f"providers.openai.wires.responses.same_request.{NAME}.")
    missing = check_recording(suite, by_name["fantasy_responses_gpt-5_multi_tool"])
    assert [f.check for f in missing.findings] == ["cross-wire"]
    assert "no_such_recording" in str(missing.findings[0].declared)
