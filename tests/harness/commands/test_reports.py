"""The machine-readable reports CI systems and dashboards read, checked against their schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolcall.harness.cli import main
from toolcall.harness.suite.profiles import format_schema

ROOT = Path(__file__).resolve().parents[3]
VALIDATOR = Draft202012Validator(format_schema("reports.schema.json"))


@pytest.mark.slow
def test_conformance_json_from_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "conformance.json"
    assert (
        main(["--root", str(ROOT), "conformance", "--provider", "qwen", "--json", str(target)]) == 0
    )
    document = json.loads(target.read_text(encoding="utf-8"))
    assert list(VALIDATOR.iter_errors(document)) == []
    outcomes = {o["scenario"]: o for o in document["outcomes"]}
    assert outcomes["parallel_calls"]["status"] == "pass"
    assert outcomes["parallel_calls"]["evidence"] == "synthesized"
    assert outcomes["tool_stream_call"]["status"] == "n/a"
    assert outcomes["published/vercel-ai_qwen3-max-tool-call"]["evidence"] == "first-party"
    assert document["summary"]["recordings"] == 2
    capsys.readouterr()


@pytest.mark.slow
def test_conformance_json_carries_findings(suite_copy: Path) -> None:
    """A contradicted profile shows up in the JSON as a failing outcome with its finding."""
    providers = suite_copy / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    providers.write_text(
        text.replace("later_id: {value: empty,", "later_id: {value: absent,"), "utf-8"
    )
    target = suite_copy / "out.json"
    assert (
        main(
            ["--root", str(suite_copy), "conformance", "--provider", "qwen", "--json", str(target)]
        )
        == 1
    )
    document = json.loads(target.read_text(encoding="utf-8"))
    assert list(VALIDATOR.iter_errors(document)) == []
    failed = [o for o in document["outcomes"] if o["status"] == "fail"]
    assert failed
    paths = {f["path"] for o in failed for f in o["findings"]}
    assert "quirks.later_id" in paths or "providers.qwen.quirks.later_id" in paths


@pytest.mark.slow
def test_matrix_json_from_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "matrix.json"
    args = ["--root", str(ROOT), "matrix", "--provider", "gemini", "--implementation", "toolcall"]
    assert main([*args, "--json", str(target)]) == 0
    document = json.loads(target.read_text(encoding="utf-8"))
    assert list(VALIDATOR.iter_errors(document)) == []
    (reference,) = document["implementations"]
    assert reference["name"] == "toolcall"
    assert reference["passed"] == reference["total"] == len(document["results"]) > 0
    assert {r["verdict"] for r in document["results"]} == {"pass"}
    capsys.readouterr()
