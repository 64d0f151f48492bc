"""Accepting a recording run into providers.yaml, and adding a provider: comments kept, one
provider-level block plus the overrides that differ, the printed form the same change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from toolcall.harness import cli
from toolcall.harness.checks import check_cell
from toolcall.harness.recording import accept
from toolcall.harness.recording.add_provider import add_provider
from toolcall.harness.recording.record import Recorded
from toolcall.harness.suite import cassettes, fingerprint
from toolcall.harness.suite.profiles import ProfileError, Provider, Suite, load_suite


def _recorded(suite: Suite, provider: Provider, scenario: str, **changed: Any) -> Recorded:
    """What recording `scenario` would observe if the provider now streamed `changed`."""
    path = cassettes.cassette_path(suite.cassettes, provider.key, scenario)
    observed = fingerprint.observe(cassettes.response_body(cassettes.load(path)))
    seen = {k: v for k, v in observed.quirks.items() if v is not None}
    seen["id_pattern"] = fingerprint.suggest_pattern([i for i in observed.ids if i] or ["x"])
    seen.update(changed)
    return Recorded(provider.key, scenario, path, 0, [], seen, [i for i in observed.ids if i])


def _applicable(provider: Provider) -> list[str]:
    return [s for s, c in provider.cells.items() if c.not_applicable is None]


def test_an_empty_change_leaves_the_file_byte_for_byte(suite_copy: Path) -> None:
    path = suite_copy / "providers.yaml"
    before = path.read_bytes()
    accept.apply(path, [])
    assert path.read_bytes() == before


def test_a_provider_wide_change_is_one_provider_level_entry(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    grok = suite.providers["grok"]
    runs = [_recorded(suite, grok, s, done=False) for s in _applicable(grok)]
    runs[0].observed["sse_comments"] = True
    change = accept.plan(suite, grok, runs)
    assert change.quirks["done"] is False
    assert [q for q in change.quirks if q in grok.quirks] == ["done"]
    assert change.overrides[runs[0].scenario]["sse_comments"] is True
    assert [s for s, o in change.overrides.items() if "done" in o or "sse_comments" in o] == [
        runs[0].scenario
    ]
    path = suite_copy / "providers.yaml"
    comments = [line for line in path.read_text(encoding="utf-8").splitlines() if "#" in line]
    accept.apply(path, [change])
    text = path.read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if "#" in line] == comments
    accepted = load_suite(suite_copy).providers["grok"]
    assert accepted.quirks["done"] is False
    assert accepted.quirk_evidence["done"]["evidence"] == "recorded"
    assert accepted.cells[runs[0].scenario].quirks["sse_comments"] is True
    assert accepted.cells[runs[1].scenario].quirks["sse_comments"] is False
    for scenario in _applicable(grok):
        assert accepted.cells[scenario].provenance["kind"] == "recorded"


def test_a_partial_run_changes_only_its_own_scenarios(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    grok = suite.providers["grok"]
    change = accept.plan(suite, grok, [_recorded(suite, grok, "single_call", done=False)])
    assert change.quirks == {}
    assert change.overrides == {"single_call": {"done": False}}


def test_an_override_equal_to_the_provider_level_is_removed(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    deepseek = suite.providers["deepseek"]
    assert deepseek.cells["reasoning_then_call"].quirks["sse_comments"] is True
    run = _recorded(suite, deepseek, "reasoning_then_call", sse_comments=False)
    change = accept.plan(suite, deepseek, [run])
    assert change.overrides == {"reasoning_then_call": {"sse_comments": None}}
    accept.apply(suite_copy / "providers.yaml", [change])
    cell = load_suite(suite_copy).providers["deepseek"].cells["reasoning_then_call"]
    assert cell.quirks["sse_comments"] is False


def test_the_printed_change_is_valid_yaml_of_the_same_change(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    grok = suite.providers["grok"]
    runs = [_recorded(suite, grok, s, done=False) for s in _applicable(grok)]
    changes = [accept.plan(suite, grok, runs)]
    printed = yaml.safe_load(accept.as_yaml(changes))
    assert printed == accept.document(changes)
    assert printed["providers"]["grok"]["quirks"]["done"]["value"] is False


def test_a_change_that_would_not_load_is_refused_and_the_file_kept(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    deepseek = suite.providers["deepseek"]
    runs = [_recorded(suite, deepseek, s) for s in _applicable(deepseek)]
    for run in runs:
        run.observed["reasoning_field"] = "reasoning/reasoning_content"  # outside the vocabulary
    change = accept.plan(suite, deepseek, runs)
    assert change.quirks["reasoning_field"] == "reasoning/reasoning_content"
    path = suite_copy / "providers.yaml"
    before = path.read_bytes()
    with pytest.raises(ProfileError) as refused:
        accept.apply(path, [change])
    message = str(refused.value)
    assert message.startswith("record --accept: refused, providers.yaml is left as it was")
    assert "providers.deepseek.quirks.reasoning_field.value" in message
    assert path.read_bytes() == before
    assert load_suite(suite_copy).providers["deepseek"].quirks == deepseek.quirks


def test_a_stream_with_both_reasoning_fields_is_accepted(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    deepseek = suite.providers["deepseek"]
    path = cassettes.cassette_path(suite.cassettes, "deepseek", "reasoning_then_call")
    body = cassettes.response_body(cassettes.load(path)).replace(
        b'"reasoning_content":"The"', b'"reasoning":"The"', 1
    )
    observed = fingerprint.observe(body)
    assert observed.quirks["reasoning_field"] == "mixed"
    runs = [_recorded(suite, deepseek, s) for s in _applicable(deepseek)]
    for run in runs:
        if run.scenario == "reasoning_then_call":
            run.observed["reasoning_field"] = observed.quirks["reasoning_field"]
    accept.apply(suite_copy / "providers.yaml", [accept.plan(suite, deepseek, runs)])
    cell = load_suite(suite_copy).providers["deepseek"].cells["reasoning_then_call"]
    assert cell.quirks["reasoning_field"] == "mixed"


# -- add-provider -------------------------------------------------------------------------------


def _new_name(suite: Suite) -> str:
    """A provider name this suite does not have yet."""
    return next(f"local{n}" for n in range(100) if f"local{n}" not in suite.providers)


@pytest.mark.slow
def test_add_provider_writes_a_complete_skeleton(
    suite_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _new_name(load_suite(suite_copy))
    before = (suite_copy / "providers.yaml").read_text(encoding="utf-8")
    args = ["--root", str(suite_copy), "add-provider", name, "--base-url"]
    args += ["http://127.0.0.1:9/v1", "--key-env", "LOCAL_API_KEY", "--model", "m"]
    assert cli.main(args) == 0
    assert f"make record PROVIDER={name} ACCEPT=1" in capsys.readouterr().out
    after = (suite_copy / "providers.yaml").read_text(encoding="utf-8")
    assert after.startswith(before) and "&id" not in after
    suite = load_suite(suite_copy)
    added = suite.providers[name]
    assert list(added.cells) == list(suite.scenarios)
    assert added.synthesis == {} and added.quirks == {}
    outcome = check_cell(suite, added, added.cells["single_call"])
    assert outcome.status == "fail"
    assert f"not recorded yet: make record PROVIDER={name} SCENARIO=single_call ACCEPT=1" in (
        outcome.reason
    )
    assert cli.main(args) == 2
    assert f"already has providers.{name}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "key_env", "base_url", "message"),
    [
        ("Local", "LOCAL_API_KEY", "http://h/v1", "lower case"),
        (None, "local key", "http://h/v1", "--key-env names a variable"),
        (None, "LOCAL_API_KEY", "localhost:8000", "--base-url must be an http"),
        (None, "LOCAL_API_KEY", "http://me:pw@h/v1", "--base-url carries credentials"),
        (None, "LOCAL_API_KEY", "http://h/v1?token=abc", "--base-url carries credentials"),
        ("local\n", "LOCAL_API_KEY", "http://h/v1", "lower case"),
        (None, "LOCAL_API_KEY\n", "http://h/v1", "--key-env names a variable"),
        (None, "LOCAL_API_KEY", "http://a[b]/v1", "--base-url must be an http.*not a valid URL"),
        (None, "LOCAL_API_KEY", "http://127.0.0.1:abc/v1", "port must be a number from 1"),
        (None, "LOCAL_API_KEY", "http://127.0.0.1:0/v1", "port must be a number from 1"),
    ],
)
def test_add_provider_refuses_bad_input(
    suite_copy: Path, name: str | None, key_env: str, base_url: str, message: str
) -> None:
    suite = load_suite(suite_copy)
    before = (suite_copy / "providers.yaml").read_bytes()
    with pytest.raises(ProfileError, match=message):
        add_provider(suite, name or _new_name(suite), base_url=base_url, key_env=key_env, model="m")
    assert (suite_copy / "providers.yaml").read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("word", ["yes", "no", "on", "off"])
def test_add_provider_writes_yaml_1_1_booleans_as_the_strings_they_are(
    suite_copy: Path, word: str
) -> None:
    """ruamel.yaml writes YAML 1.2, where `on` is a string; the suite reads YAML 1.1."""
    suite = load_suite(suite_copy)
    add_provider(suite, word, base_url="http://h/v1", key_env=word.upper(), model=word)
    added = load_suite(suite_copy).providers[word]
    assert (added.key, added.key_env, added.model) == (word, word.upper(), word)


def test_a_synthesized_cell_needs_a_synthesis_block(suite_copy: Path) -> None:
    path = suite_copy / "providers.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("  grok:\n")
    block_start = text.index("    synthesis:\n", start)
    block_end = text.index("    scenarios:\n", block_start)
    path.write_text(text[:block_start] + text[block_end:], encoding="utf-8")
    with pytest.raises(ProfileError, match=r"providers\.grok\.scenarios\.single_call: .*ACCEPT=1"):
        load_suite(suite_copy)


def test_a_quirk_the_published_recordings_contradict_stays_undeclared(suite_copy: Path) -> None:
    suite = load_suite(suite_copy)
    grok = suite.providers["grok"]
    assert "role" not in grok.quirks  # grok's recordings send role on the first chunk only
    runs = [_recorded(suite, grok, s, role="every") for s in _applicable(grok)]
    change = accept.plan(suite, grok, runs)
    assert "role" not in change.quirks
    assert all("role" not in overrides for overrides in change.overrides.values())
    assert change.quirks.get("finish_reason_repeated") is False


def test_synthesize_keeps_a_recording_and_names_the_command_that_accepts_it(
    suite_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = cassettes.cassette_path(suite_copy / "cassettes", "qwen", "single_call")
    text = path.read_text(encoding="utf-8").replace("kind: synthesized", "kind: recorded")
    path.write_text(text, encoding="utf-8")
    args = ["--root", str(suite_copy), "synthesize", "--provider", "qwen"]
    assert cli.main([*args, "--scenario", "single_call"]) == 0
    out = capsys.readouterr().out
    assert "kept cassettes/qwen/single_call.yaml: it is recorded evidence" in out
    assert "make record PROVIDER=qwen SCENARIO=single_call ACCEPT=1" in out
    assert path.read_text(encoding="utf-8") == text
