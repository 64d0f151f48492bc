"""`toolcall probe --compare-to REPORT`: one probe's report against an earlier one, scenario by
scenario (`probe.compare`), here a faulty server's against its plain answer on every wire: the
fault's own finding is named as the change, and a report that cannot be read is a one-line
refusal (exit 2) before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolcall.harness import serving
from toolcall.harness.cli import main
from toolcall.harness.probe import compare
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)
SCHEMA = json.loads((ROOT / "toolcall" / "schemas" / "probe.schema.json").read_text())


def probe(url: str, wire: str, model: str, out: Path, *more: str) -> int:
    base = url + ("/v1" if wire in ("chat", "responses") else "")
    args = ["probe", "--base-url", base, "--model", model, "--wire", wire, "--family", "other"]
    return main([*args, "--scenario", "single_call", "--no-clients", "--json", str(out), *more])


@pytest.mark.parametrize("wire", ["chat", "responses", "anthropic", "gemini", "ollama"])
def test_a_fault_is_named_as_the_change_from_the_plain_answer(
    wire: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, faulty = tmp_path / "plain.json", tmp_path / "faulty.json"
    with serving.serving(SUITE) as running:
        assert probe(running.base_url, wire, "fault:plain", plain) == 0
        capsys.readouterr()
        code = probe(
            running.base_url, wire, "fault:markup-in-content", faulty, "--compare-to", str(plain)
        )
    said = capsys.readouterr().out
    document = json.loads(faulty.read_text())
    Draft202012Validator(SCHEMA).validate(document)
    findings = [c for c in document["changes"] if c["what"] == "findings"]
    assert code == 1 and findings, document["changes"]
    assert all(c["scenario"] == "single_call" for c in document["changes"])
    assert any("tool_call_in_text" in c["after"] for c in findings)
    assert f"compared with {plain}: {len(document['changes'])} change(s)" in said


def test_the_same_report_twice_has_no_change() -> None:
    report = {
        "scenarios": [{"name": "a", "streamed": {"status": "read", "calls": ["f"]}}],
        "findings": [{"code": "x", "scenario": "a", "streamed": True}],
    }
    assert compare.changes(report, report) == []
    assert compare.terminal("r.json", []) == "compared with r.json: no scenario's answer changed\n"


def test_a_scenario_only_one_report_has_is_left_out() -> None:
    before = {"scenarios": [{"name": "a", "streamed": {"status": "read"}}], "findings": []}
    after = {
        "scenarios": [{"name": "a", "streamed": {"status": "refused"}}, {"name": "b"}],
        "findings": [],
    }
    assert compare.changes(before, after) == [
        {"scenario": "a", "streamed": True, "what": "status", "before": "read", "after": "refused"}
    ]


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "cannot read the probe report"), ("[1]", "is not a probe's JSON report")],
)
def test_a_report_that_cannot_be_read_is_refused_before_any_request(
    content: str | None, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "earlier.json"
    if content is not None:
        report.write_text(content)
    # nothing listens on port 9: no request is made, or this would be a connection refusal
    code = probe(
        "http://127.0.0.1:9", "chat", "m", tmp_path / "o.json", "--compare-to", str(report)
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and words in err and len(err.splitlines()) == 1
