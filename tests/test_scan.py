"""`toolcall scan` reads a cassette as its readers will, and stays linear on a megabyte line.

A body holding CR, NEL, LS or PS is written as one double-quoted YAML scalar (`cassettes.dump`):
every backslash is doubled and a long body is folded over lines, so a key the server echoed
JSON-escaped (`sk\\u002dproj...`) is neither a JSON escape nor on one line there.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from toolcall.harness import cassettes, secrets

OPENAI_KEY = "sk-proj-" + "A1b2C3d4" * 5
GOOGLE_KEY = "AIza" + "SyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6"


def escape_dashes(key: str) -> str:
    return key.replace("-", "\\u002d")


def escape_first(key: str) -> str:
    return f"\\u{ord(key[0]):04X}{key[1:]}"


def cassette_with(tmp_path: Path, echoed: str, before: str) -> Path:
    body = 'data: {"error": "' + before + echoed + '"}\r\n\r\n'
    path = tmp_path / "echo.yaml"
    path.write_text(cassettes.dump({"interactions": [{"response": {"body": {"string": body}}}]}))
    assert '"data: ' in path.read_text(), "the body is written double-quoted"
    return path


@pytest.mark.parametrize("before", ["", "word " * 40, "x" * 200], ids=["short", "folded", "long"])
@pytest.mark.parametrize(
    ("key", "escape", "kind"),
    [
        (OPENAI_KEY, escape_dashes, "openai-key"),
        (OPENAI_KEY, escape_first, "openai-key"),
        (GOOGLE_KEY, escape_first, "google-key"),
    ],
)
def test_a_json_escaped_key_in_a_double_quoted_body_is_found(
    tmp_path: Path, before: str, key: str, escape: Callable[[str], str], kind: str
) -> None:
    path = cassette_with(tmp_path, escape(key), before)
    assert [(hit.line, hit.kind) for hit in secrets.scan([path])] == [(4, kind)]
    configured = [h.kind for h in secrets.scan([path], [key]) if h.kind != kind]
    assert configured == ["configured key value"]


#: Lines built from a repeated piece, each the worst case of some pattern as it was written before:
#: a scheme-shaped run re-read from every start, a JWT prefix repeated inside its own run.
PIECES = ["a.", "a1b2c3d4e5f6.", "eyJ", "eyJ-", "x://a:", "sk-", "bearer ", "basic Aa", "token="]


def _best_of(search: Callable[[str], object], line: str, times: int = 5) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        search(line)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("name", list(secrets.PATTERNS))
def test_every_pattern_grows_linearly_with_the_line(name: str) -> None:
    """A line 16 times longer costs about 16 times more, not 256: compared as a ratio of the same
    search on two sizes (best of five each), never against a clock."""
    pattern: re.Pattern[str] = secrets.PATTERNS[name]
    for piece in PIECES:
        small = (piece * (10_000 // len(piece) + 1))[:10_000] + "!"
        large = (piece * (160_000 // len(piece) + 1))[:160_000] + "!"
        growth = _best_of(pattern.search, large) / max(_best_of(pattern.search, small), 1e-7)
        assert growth < 64, f"{name} on {piece!r}...: 16x the line cost {growth:.0f}x the time"


# Built at run time, so that no test source looks like it holds a key.
SAMPLES = [
    OPENAI_KEY,
    escape_dashes(OPENAI_KEY),
    GOOGLE_KEY,
    "Authorization: Bearer " + "abcdefghijklmnop1234",
    "uri: https://someone:" + "hunter2@example.com/v1",
    '{"api_key": "' + "3f0c9a1e-52bd-4c8e" + '-9d71-0a6e5b2c8f14"}',
    "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU",
]
#: What `str.splitlines` ends a line at, besides the usual.
BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x1c", "\x85", "\u2028"]
CASSETTE = (Path(__file__).parents[1] / "cassettes" / "glm" / "parallel_calls.yaml").read_text()


@pytest.mark.parametrize("breaks", BREAKS, ids=[f"U+{ord(b[-1]):04X}" for b in BREAKS])
def test_the_whole_file_search_finds_what_a_search_line_by_line_finds(breaks: str) -> None:
    """The scanner searches the whole text before it searches lines: every secret a line holds,
    however the lines around it end, must be found on its own line all the same."""
    lines = CASSETTE.splitlines()
    for n, sample in enumerate(SAMPLES):
        at = (n * 7) % len(lines)
        lines[at : at + 1] = [lines[at] + breaks + sample + breaks + "tail"]
    text = "\n".join(lines)
    expected = [
        secrets.Hit(Path("x"), number, kind)
        for number, line in enumerate(text.splitlines(), start=1)
        for kind in secrets.kinds(line)
    ]
    found = secrets.scan_text(text, Path("x"), known=[OPENAI_KEY])
    assert sorted(set(found) - {h for h in found if h.kind == "configured key value"}, key=str) == (
        sorted(set(expected), key=str)
    )
    assert {h.line for h in found if h.kind == "configured key value"} == {
        h.line for h in expected if h.kind == "openai-key"
    }
