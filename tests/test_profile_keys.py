"""The profiles' mapping keys are names: never a YAML 1.1 boolean, None or number, never twice.

PyYAML reads YAML 1.1: an unquoted route named `yes` is `True`, passes the schema's name pattern
(a pattern checks strings only) and broke every later sort of the names; of two equal keys it
kept the last one, silently. Each is one error naming the file and the line, before anything is
sent or written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall.harness import cli
from toolcall.harness.suite.profiles import ProfileError, load_suite

ROUTE = """  {name}:
    kind: gateway
    name: a gateway with a surprising name
    description: a gateway named by a word YAML 1.1 reads as something else
"""


def _edit(root: Path, name: str, old: str, new: str) -> int:
    """Replace `old` by `new` in `root/name`; the line number `new` starts at."""
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


@pytest.mark.parametrize("name", ["yes", "no", "on", "off", "null", "~", "1", "0x1f", "1.5"])
def test_a_route_name_yaml_reads_as_another_type_is_refused_naming_its_line(
    suite_copy: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _edit(
        suite_copy, "routes.yaml", "  litellm:\n", ROUTE.format(name=name) + "  litellm:\n"
    )
    with pytest.raises(ProfileError, match=rf"^routes\.yaml: line {line}: the key '{name}' reads"):
        load_suite(suite_copy)
    # What a user sees: one line, and no traceback, whatever route is asked for.
    assert (
        cli.main(["--root", str(suite_copy), "record", "--provider", "kimi", "--route", "x"]) == 2
    )
    err = capsys.readouterr().err
    assert err.startswith(f"toolcall: routes.yaml: line {line}: the key '{name}'")
    assert "Traceback" not in err and err.count("\n") == 1


def test_a_quoted_name_is_a_name(suite_copy: Path) -> None:
    _edit(suite_copy, "routes.yaml", "  litellm:\n", ROUTE.format(name="'yes'") + "  litellm:\n")
    assert "yes" in load_suite(suite_copy).routes


@pytest.mark.parametrize(
    ("name", "old", "key"),
    [
        ("routes.yaml", "  litellm:\n", "portkey"),
        ("providers.yaml", "  kimi:\n", "gemini"),
        ("scenarios.yaml", "  single_call:\n", "text_only"),
    ],
)
def test_a_duplicate_key_is_refused_naming_both_lines(
    suite_copy: Path, name: str, old: str, key: str
) -> None:
    """The first of the two (inserted here, before the original) is named with the second."""
    first = _edit(suite_copy, name, old, f"  {key}:\n    description: given twice\n" + old)
    with pytest.raises(
        ProfileError, match=rf"line \d+: duplicate key '{key}' \(first at line {first}\)"
    ):
        load_suite(suite_copy)


def test_a_duplicate_key_in_routes_yaml_stops_a_recording_before_anything_is_written(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(suite_copy, "routes.yaml", "    kind: gateway\n", "    kind: gateway\n    kind: host\n")
    before = sorted(p.relative_to(suite_copy) for p in suite_copy.rglob("*"))
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-key-nothing-is-sent")
    arguments = ["--provider", "gemini", "--route", "litellm", "--accept"]
    arguments += ["--base-url", "http://127.0.0.1:9/v1"]
    assert cli.main(["--root", str(suite_copy), "record", *arguments]) == 2
    assert "duplicate key 'kind'" in capsys.readouterr().err
    assert sorted(p.relative_to(suite_copy) for p in suite_copy.rglob("*")) == before
