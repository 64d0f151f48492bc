"""The gate can fail: copies of real cassettes, changed the way a provider might change, are
reported as drift or as errors naming the provider, the scenario and the quirk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import stream_edit
from toolcall.harness.checks import Outcome, check_cell
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import ProfileError, load_suite


def _edit_cassette(root: Path, provider: str, scenario: str, edit: Callable[..., object]) -> None:
    path = cassettes.cassette_path(root / "cassettes", provider, scenario)
    cassette = cassettes.load(path)
    response = cassette["interactions"][0]["response"]["body"]
    response["string"] = stream_edit.edit_chunks(response["string"], edit)  # type: ignore[arg-type]
    cassettes.write_atomically(path, cassettes.dump(cassette))


def _check(root: Path, provider: str, scenario: str) -> Outcome:
    suite = load_suite(root)
    return check_cell(suite, suite.providers[provider], suite.providers[provider].cells[scenario])


def _lines(outcome: Outcome) -> str:
    return outcome.report()


@pytest.mark.parametrize(
    ("provider", "scenario", "edit", "quirk", "observed"),
    [
        ("grok", "single_call", stream_edit.split_whole_calls, "quirks.arguments", "incremental"),
        ("gemini", "parallel_calls", stream_edit.add_index, "quirks.index", "present"),
        ("qwen", "single_call", stream_edit.drop_empty_ids, "quirks.later_id", "absent"),
    ],
)
def test_changed_stream_is_reported_as_drift(
    suite_copy: Path,
    provider: str,
    scenario: str,
    edit: Callable[..., object],
    quirk: str,
    observed: str,
) -> None:
    assert _check(suite_copy, provider, scenario).status == "pass"
    _edit_cassette(suite_copy, provider, scenario, edit)
    outcome = _check(suite_copy, provider, scenario)
    assert outcome.status == "fail"
    drift = [f for f in outcome.findings if f.check == "quirks" and f.path == quirk]
    assert len(drift) == 1, _lines(outcome)
    assert drift[0].observed == observed
    assert outcome.report().startswith(f"{provider} / {scenario}: fail")


def test_corrupt_arguments_are_an_error_naming_the_call(suite_copy: Path) -> None:
    _edit_cassette(suite_copy, "openai", "single_call", stream_edit.corrupt_arguments)
    outcome = _check(suite_copy, "openai", "single_call")
    library = [f for f in outcome.findings if f.check == "library"]
    assert library, _lines(outcome)
    message = str(library[0].observed)
    assert message.startswith("ArgumentsError on cassettes/openai/single_call.yaml")
    assert outcome.report().startswith("openai / single_call: fail")
    assert "tool call index 0" in message
    assert "get_weather" in message


def test_a_changed_request_no_longer_replays(suite_copy: Path) -> None:
    scenarios = suite_copy / "scenarios.yaml"
    text = scenarios.read_text(encoding="utf-8")
    scenarios.write_text(text.replace("Lisbon", "Porto", 1), encoding="utf-8")
    outcome = _check(suite_copy, "openai", "single_call")
    assert [f.check for f in outcome.findings] == ["replay"], _lines(outcome)
    assert "does not match single_call.yaml" in str(outcome.findings[0].observed)


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("    key_env: XAI_API_KEY", "    key_env: xai key", "providers.grok.key_env"),
        ("arguments: {value: whole,", "arguments: {value: chunky,", "quirks.arguments.value"),
        ("version: 1", "version: 7", "version"),
    ],
)
def test_malformed_providers_yaml_names_the_path(
    suite_copy: Path, old: str, new: str, where: str
) -> None:
    providers = suite_copy / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    assert old in text
    providers.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ProfileError, match=r"providers\.yaml: .*" + where.replace(".", r"\.")):
        load_suite(suite_copy)


def test_missing_scenario_entry_is_named(suite_copy: Path) -> None:
    providers = suite_copy / "providers.yaml"
    lines = providers.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == "text_only:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    providers.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")
    with pytest.raises(ProfileError, match="no entry for \\['text_only'\\]"):
        load_suite(suite_copy)
