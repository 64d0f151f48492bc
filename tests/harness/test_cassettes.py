"""Cassette files: what is written reads back exactly, with the checkout's permissions, and a file
that is not a cassette is one failing cell with its name, never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolcall.harness import cli
from toolcall.harness.checks import check_cell
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[2]


def _cassette(body: str) -> dict[str, object]:
    return cassettes.build(
        uri="http://127.0.0.1/v1/chat/completions",
        request_body="{}",
        request_headers=cassettes.request_headers(),
        status=200,
        reason="OK",
        response_headers={"content-type": ["text/event-stream"]},
        response_body=body,
    )


@pytest.mark.parametrize("odd", ["\x85", "\u2028", "\u2029", "\r"])
def test_a_yaml_line_break_inside_a_json_string_reads_back_unchanged(
    tmp_path: Path, odd: str
) -> None:
    body = f'data: {{"content":"a{odd}b"}}\n\ndata: [DONE]\n\n'
    path = tmp_path / "c.yaml"
    cassettes.write_atomically(path, cassettes.dump(_cassette(body)))
    assert cassettes.response_body(cassettes.load(path)) == body.encode("utf-8")


def test_a_plain_body_is_still_one_sse_line_per_line(tmp_path: Path) -> None:
    text = cassettes.dump(_cassette('data: {"a":1}\n\ndata: [DONE]\n\n'))
    assert "string: |" in text and '\n        data: {"a":1}\n' in text


def test_cassettes_get_the_umask_permissions_not_private_ones(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "p" / "c.yaml"
        cassettes.write_atomically(path, "version: 1\n")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_failed_check_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("old\n", encoding="utf-8")
    seen: list[str] = []

    def refuse(temporary: Path) -> None:
        seen.append(temporary.read_text(encoding="utf-8"))
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        cassettes.write_atomically(path, "new\n", check=refuse)
    assert seen == ["new\n"]
    assert path.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_gitignore_covers_the_temporary_files() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    name = "cassettes/openai/.single_call.yaml.0a1b2c3d" + cassettes.TEMPORARY_SUFFIX
    done = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT, check=False)
    assert done.returncode == 0, f"{name} is not git-ignored"


TAGGED = "!!python/object/apply:os.system ['true']\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (TAGGED, "not a readable cassette"),
        ("- just\n- a list\n", "not a readable cassette"),
        ("version: 1\n", "not a cassette: no `interactions`"),
    ],
)
@pytest.mark.slow
def test_a_file_that_is_not_a_cassette_is_one_failing_cell(
    suite_copy: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    path = cassettes.cassette_path(suite_copy / "cassettes", "qwen", "single_call")
    path.write_text(text, encoding="utf-8")
    suite = load_suite(suite_copy)
    provider = suite.providers["qwen"]
    outcome = check_cell(suite, provider, provider.cells["single_call"])
    assert outcome.status == "fail"
    assert [f.check for f in outcome.findings] == ["replay"]
    assert reason in str(outcome.findings[0].observed)
    assert "single_call.yaml" in str(outcome.findings[0].observed)
    args = ["--root", str(suite_copy), "conformance", "--provider", "qwen"]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "FAIL qwen/single_call: replay" in out
    assert "qwen/parallel_calls" not in [line.split(":")[0][5:] for line in out.splitlines()]


@pytest.mark.slow
def test_an_unreadable_published_recording_is_one_failing_recording(
    suite_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recordings = sorted((suite_copy / "cassettes" / "grok" / "published").glob("*.yaml"))
    recordings[0].write_text(TAGGED, encoding="utf-8")
    assert cli.main(["--root", str(suite_copy), "conformance", "--provider", "grok"]) == 1
    out = capsys.readouterr().out
    stem = recordings[0].name.removesuffix(".yaml")
    assert f"FAIL grok/published/{stem}: replay $: declared 'a readable recording'" in out
    assert [line for line in out.splitlines() if line.startswith("FAIL ")] == [
        line for line in out.splitlines() if line.startswith(f"FAIL grok/published/{stem}:")
    ]
    assert f"{len(recordings) - 1}/{len(recordings)}" in out
