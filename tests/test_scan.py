"""`toolcall scan` reads a cassette as its readers will, and stays linear on a megabyte line.

A body holding CR, NEL, LS or PS is written as one double-quoted YAML scalar (`cassettes.dump`):
every backslash is doubled and a long body is folded over lines, so a key the server echoed
JSON-escaped (`sk\\u002dproj...`) is neither a JSON escape nor on one line there.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolcall.harness.recording import secrets
from toolcall.harness.suite import cassettes

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


#: A line so long that a pattern re-reading it from every start (a million squared over two steps)
#: cannot finish within `PATIENCE`, while one read in a single pass takes a few seconds at most:
#: the proof is that the search ends, not how fast.
LINE = 1_000_000
#: Seconds a search of every piece may take; a linear one takes under one on this machine, so
#: only a quadratic one, by orders of magnitude, reaches it.
PATIENCE = 300
_SEARCH = """
import sys
from toolcall.harness.recording import secrets
pattern = secrets.PATTERNS[sys.argv[1]]
for piece in sys.argv[2:]:
    pattern.search((piece * ({line} // len(piece) + 1))[:{line}] + "!")
"""


def searches_end(pattern: str, pieces: list[str]) -> bool:
    """Whether `pattern` searches a `LINE`-long line of each piece repeated, all within
    `PATIENCE`, in a process of its own (a search in C cannot be interrupted otherwise)."""
    try:
        subprocess.run(
            [sys.executable, "-c", _SEARCH.format(line=LINE), pattern, *pieces],
            check=True,
            timeout=PATIENCE,
        )
    except subprocess.TimeoutExpired:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("name", list(secrets.PATTERNS))
def test_every_pattern_reads_a_megabyte_line_of_its_worst_pieces(name: str) -> None:
    """A pattern stays linear in the line: a megabyte of each piece that made some pattern, as it
    was written before, re-read the line from every start is searched to its end."""
    assert searches_end(name, PIECES), f"{name} did not finish a {LINE}-character line"


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
