"""`PartialArguments`: the arguments as far as they go after every fragment, errors at the first
character that rules JSON out, and the final value `json.loads` gives.

The reference for partial values is pydantic-core's `from_json(prefix,
allow_partial="trailing-strings")`, the reading users already see elsewhere. On prefixes of valid
JSON it differs from ours in one place, excluded below with its reason: text blank so far, where
pydantic-core raises and we show the empty object. The module docstring lists the invalid texts
it reads and we refuse; those are tested against the library's own reading instead.

The realistic arguments are `benchmarks/partial_reader.py`'s, which times them; no test here
asserts a time.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_core import from_json

from toolcall import ArgumentsError, UsageError
from toolcall._json import MAX_DEPTH, Refused, loads_arguments
from toolcall._turn.partial_arguments import ArgumentsChange, PartialArguments

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from partial_reader import file_arguments, record_arguments

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tagged(value: Any) -> Any:
    """`value` with every number's type and exact float spelled out: `1 == 1.0 == True` and
    `0.0 == -0.0` in Python, but a tool sees the difference."""
    if isinstance(value, dict):
        return {key: tagged(member) for key, member in value.items()}
    if isinstance(value, list):
        return [tagged(member) for member in value]
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return ("int", value)
    return value


def reference(prefix: str) -> Any:
    return from_json(prefix, allow_partial="trailing-strings")


def fed(fragments: list[str], check: Callable[[str, dict[str, Any]], None]) -> PartialArguments:
    """A reader fed `fragments`, `check` called with the text so far and the value after each."""
    reader = PartialArguments()
    so_far = ""
    for fragment in fragments:
        reader.feed(fragment)
        so_far += fragment
        check(so_far, reader.value())
    return reader


def agrees_with_reference(prefix: str, value: dict[str, Any]) -> None:
    if not prefix.strip(" \t\n\r"):
        assert value == {}  # pydantic-core raises on blank text; nothing has arrived
        return
    assert tagged(value) == tagged(reference(prefix)), prefix


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


# -- strategies ------------------------------------------------------------------------------

# Characters that exercise every path of a string: escapes (quote, backslash, controls), non-ASCII
# in the BMP, and astral characters (a surrogate pair when escaped with ensure_ascii).
string_chars = st.sampled_from(['"', "\\", "/", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "€"]) | (
    st.characters(codec="utf-8", exclude_categories=["Cs"])
)
strings = st.text(string_chars, max_size=12) | st.sampled_from(["😀", "a😀b", "𝄞\n", ""])
numbers = (
    st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, -0.0, 0.0, 1e-300, 5e-324, 1.7976931348623157e308, 2**64, -(2**63)])
)
scalars = st.none() | st.booleans() | numbers | strings
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=20,
)
objects = st.dictionaries(strings, values, max_size=6)
STYLES = [
    {},
    {"ensure_ascii": False},
    {"indent": 2},
    {"indent": "\t", "ensure_ascii": False},
    {"separators": (",", ":")},
    {"indent": 0, "separators": (" ,\r\n", " : ")},
]
cut_lists = st.lists(st.integers(min_value=0, max_value=10_000), max_size=40)


# -- partial values and the final value ----------------------------------------------------------


@PROPERTY
@given(objects, st.sampled_from(STYLES), cut_lists)
def test_every_prefix_reads_as_the_reference_and_the_end_as_json_loads(
    value: dict[str, Any], style: dict[str, Any], cuts: list[int]
) -> None:
    text = json.dumps(value, **style)
    reader = fed(split(text, cuts), agrees_with_reference)
    assert reader.done
    assert tagged(reader.value()) == tagged(json.loads(text))


@pytest.mark.slow
@PROPERTY
@given(objects, st.sampled_from(STYLES))
def test_one_character_at_a_time_cuts_every_escape_and_surrogate_pair(
    value: dict[str, Any], style: dict[str, Any]
) -> None:
    text = json.dumps(value, **style)
    reader = fed(list(text), agrees_with_reference)
    assert tagged(reader.value()) == tagged(json.loads(text))


number_texts = st.from_regex(
    r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
)


@pytest.mark.slow
@PROPERTY
@given(st.lists(number_texts, min_size=1, max_size=5), cut_lists)
def test_numbers_of_every_shape(literals: list[str], cuts: list[int]) -> None:
    """Shapes json.dumps never writes (`1E+05`, `-0`, `0.50`, long mantissas), cut anywhere."""
    literals = [literal for literal in literals if math.isfinite(float(literal))]
    text = '{"n": ' + literals[0] + ', "list": [' + ", ".join(literals) + "]}" if literals else "{}"
    reader = fed(split(text, cuts), agrees_with_reference)
    assert tagged(reader.value()) == tagged(json.loads(text))


def test_what_a_partial_value_shows() -> None:
    """The documented reading, spelled out, so that a change in pydantic-core cannot move it."""
    shows = {
        '{"path": "src/a': {"path": "src/a"},
        '{"path": "': {"path": ""},
        '{"path': {},
        '{"path"': {},
        '{"path": ': {},
        '{"n": 12': {"n": 12},
        '{"n": -': {},
        '{"n": 1.': {},
        '{"n": 1.5e': {},
        '{"n": 1.5e3': {"n": 1500.0},
        '{"ok": tr': {},
        '{"ok": true': {"ok": True},
        '{"a": "x\\': {"a": "x"},
        '{"a": "x\\u00e': {"a": "x"},
        '{"a": "x\\ud83d': {"a": "x"},
        '{"a": "x\\ud83d\\ude00': {"a": "x😀"},
        '{"a": [1, {"b": [': {"a": [1, {"b": []}]},
        '{"a": [1, 2,': {"a": [1, 2]},
    }
    for text, expected in shows.items():
        reader = PartialArguments()
        reader.feed(text)
        assert tagged(reader.value()) == tagged(expected), text
        assert not reader.done


def test_a_number_left_out_when_it_stops_being_one_and_shown_again() -> None:
    reader = PartialArguments()
    seen = []
    for char in '{"n": [1.5]}':
        reader.feed(char)
        seen.append(copy.deepcopy(reader.value()))
    assert seen[-6:] == [{"n": []}, {"n": [1]}, {"n": []}, {"n": [1.5]}, {"n": [1.5]}, {"n": [1.5]}]


def test_a_repeated_key_reads_as_the_reference_and_ends_as_json_loads() -> None:
    """The last value wins, in the first one's place; one still arriving leaves the earlier."""
    text = '{"a": 1, "b": 2, "a": 3.5, "c": "x", "b": -1e2, "c": [1], "d": 0, "d": 1.5}'
    reader = fed(list(text), agrees_with_reference)
    assert list(reader.value().items()) == list(json.loads(text).items())


def test_value_is_live_and_the_same_dict_every_time() -> None:
    reader = PartialArguments()
    first = reader.value()
    reader.feed('{"rows": [{"id": 1}')
    rows = first["rows"]
    reader.feed(', {"id": 2}], "note": "hi')
    assert reader.value() is first
    assert rows == [{"id": 1}, {"id": 2}]
    assert first == {"rows": [{"id": 1}, {"id": 2}], "note": "hi"}


def test_done_as_soon_as_the_object_closes() -> None:
    reader = PartialArguments()
    reader.feed(' \n{"a": [1, {"b": null}]')
    assert not reader.done
    reader.feed("}")
    assert reader.done
    reader.feed(" \r\n\t")
    assert reader.done and reader.value() == {"a": [1, {"b": None}]}


def test_nesting_up_to_the_librarys_limit() -> None:
    depth = MAX_DEPTH - 1  # the object itself is the first level
    text = '{"a": ' + "[" * depth + "]" * depth + "}"
    reader = fed(list(text), lambda prefix, value: None)
    assert reader.value() == loads_arguments(text)


def replay(changes: list[ArgumentsChange], tree: dict[str, Any]) -> None:
    """Apply `changes` to `tree`, as a caller following them would."""
    for change in changes:
        *parents, last = change.path
        container: Any = tree
        for key in parents:
            container = container[key]
        if change.kind == "append":
            container[last] += change.value
        elif isinstance(container, list) and last == len(container):
            container.append(change.value)
        else:
            container[last] = change.value


@pytest.mark.slow
@PROPERTY
@given(objects, st.sampled_from(STYLES), cut_lists)
def test_changes_rebuild_the_value(
    value: dict[str, Any], style: dict[str, Any], cuts: list[int]
) -> None:
    text = json.dumps(value, **style)
    reader = PartialArguments(track_changes=True)
    tree: dict[str, Any] = {}
    so_far = ""
    for fragment in split(text, cuts):
        reader.feed(fragment)
        so_far += fragment
        replay(reader.changes(), tree)
        if so_far.rstrip(" \t\n\r")[-1:] not in set("0123456789-+.eE"):  # no number in progress
            assert tagged(tree) == tagged(reader.value()), so_far
    assert reader.changes() == []
    assert tagged(tree) == tagged(json.loads(text))


def test_changes_carry_a_long_string_as_its_new_text_only() -> None:
    reader = PartialArguments(track_changes=True)
    reader.feed('{"path": "a.txt", "content": "line 1\\n')
    assert reader.changes() == [
        ArgumentsChange("set", ("path",), ""),
        ArgumentsChange("append", ("path",), "a.txt"),
        ArgumentsChange("set", ("content",), ""),
        ArgumentsChange("append", ("content",), "line 1\n"),
    ]
    reader.value()  # joins the open string; the changes go on from where they were
    reader.feed("line 2")
    reader.feed('", "n": [1, {"x": [true')
    assert reader.changes() == [
        ArgumentsChange("append", ("content",), "line 2"),
        ArgumentsChange("set", ("n",), []),
        ArgumentsChange("set", ("n", 0), 1),
        ArgumentsChange("set", ("n", 1), {}),
        ArgumentsChange("set", ("n", 1, "x"), []),
        ArgumentsChange("set", ("n", 1, "x", 0), True),
    ]


def test_reading_the_value_after_every_fragment_of_a_long_string_is_linear() -> None:
    """16 million characters of one string (32 MB as a `str`) in fragments of 1,024, the view
    read after each as a UI does: a view that made the string anew on every read would copy a
    quarter of a terabyte here, and not finish; grown in place, it costs what arrived. The
    string shown is the text so far every time."""
    piece = "δ" * 1023 + "\n"
    reader = PartialArguments()
    reader.feed('{"file": "')
    for count in range(1, 16 * 1024 + 1):
        reader.feed(piece.replace("\n", "\\n"))
        shown = reader.value()["file"]
        assert len(shown) == count * 1024 and shown.endswith(piece)
        del shown
    reader.feed('"}')
    assert reader.done and reader.value() == {"file": piece * 16 * 1024}


def test_changes_need_to_be_asked_for() -> None:
    with pytest.raises(UsageError, match="track_changes"):
        PartialArguments().changes()


# -- errors ----------------------------------------------------------------------------------

# (text, index of the character whose arrival makes the text impossible, words of the message)
INVALID = [
    ('{"a" 1}', 5, "expected ':'"),
    ("]", 0, "must be a JSON object"),
    ('[{"a": 1}]', 0, "must be a JSON object"),
    ('"text"', 0, "must be a JSON object"),
    ("\u00a0{}", 0, "must be a JSON object"),
    ('{"a": 1}{"b": 2}', 8, "two JSON values"),
    ('{"a": 1} x', 9, "two JSON values"),
    ("{,}", 1, "expected a key"),
    ('{"a": 1,}', 8, "expected a key"),
    ('{"a": [1,]}', 9, "expected a value"),
    ('{"a": 1 2}', 8, "expected ','"),
    ('{"a": [1}', 8, "expected ',' or ']'"),
    ('{"a": NaN}', 6, "NaN and Infinity"),
    ('{"a": Infinity}', 6, "NaN and Infinity"),
    ('{"a": -Infinity}', 7, "invalid number"),
    ('{"a": 01}', 7, "invalid number"),
    ('{"a": 1.}', 8, "invalid number"),
    ('{"a": 1.5.2}', 9, "invalid number"),
    ('{"a": -}', 7, "invalid number"),
    ('{"a": 1e400}', 11, "does not fit a double"),
    ('{"a": -1.5E+999}', 15, "does not fit a double"),
    ('{"a": tru}', 9, "invalid literal"),
    ('{"a": nulL}', 9, "invalid literal"),
    ('{"a": True}', 6, "expected a value"),
    ('{"a": "x\ny"}', 8, "control character"),
    ('{"a": "\x00"}', 7, "control character"),
    ('{"a\t": 1}', 3, "control character"),
    ('{"a": "\\x"}', 8, "invalid escape"),
    ('{"a": "\\u12g4"}', 11, "invalid \\u escape"),
    ('{"a": "\\ud800"}', 13, "lone surrogate (U+D800)"),
    ('{"a": "\\ud800x"}', 13, "lone surrogate (U+D800)"),
    ('{"a": "\\ud800\\n"}', 14, "lone surrogate (U+D800)"),
    ('{"a": "\\ud800\\u0041"}', 18, "lone surrogate (U+D800)"),
    ('{"a": "\\udc00"}', 12, "lone surrogate (U+DC00)"),
    ('{"\\udfff": 1}', 7, "lone surrogate (U+DFFF)"),
    ('{"a": "\ud800"}', 7, "raw surrogate U+D800"),
    ('{"a": "\ud83d\ude00"}', 7, "raw surrogate U+D83D"),
    ('{"a": ' + "[" * MAX_DEPTH, 6 + MAX_DEPTH - 1, f"nesting deeper than {MAX_DEPTH}"),
    ('{"a": ' + "7" * 5000 + "}", 6 + 5000, "digits"),
]


@pytest.mark.parametrize(("text", "at", "words"), INVALID, ids=[case[0][:24] for case in INVALID])
def test_text_that_can_never_be_json_raises_at_the_first_character_that_says_so(
    text: str, at: int, words: str
) -> None:
    reader = PartialArguments(index=2, call_id="call_7", name="write_file")
    for char in text[:at]:
        reader.feed(char)
    with pytest.raises(ArgumentsError) as raised:
        reader.feed(text[at])
    message = str(raised.value)
    assert words in message
    assert message.startswith("tool call index 2, id 'call_7', name 'write_file': ")
    # Whole, the text fails the same way; and the library's one reading refuses it too.
    with pytest.raises(ArgumentsError, match="arguments are not valid JSON"):
        PartialArguments().feed(text)
    with pytest.raises((ValueError, Refused)):
        if not isinstance(loads_arguments(text), dict):
            raise ValueError("not an object")


def test_after_an_error_the_same_error_again() -> None:
    reader = PartialArguments()
    with pytest.raises(ArgumentsError) as first:
        reader.feed('{"a": NaN')
    with pytest.raises(ArgumentsError) as again:
        reader.feed("}")
    assert again.value is first.value


def test_a_fragment_that_is_not_a_str_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="must be a str"):
        PartialArguments().feed(b'{"a": 1}')  # type: ignore[arg-type]


edits = st.sampled_from([*'{}[]:,"\\ -.0123456789eEtrufalsn', "\ud800", "\\ud800", "NaN"])


@pytest.mark.slow
@PROPERTY
@given(objects, st.sampled_from(STYLES), cut_lists, st.data())
def test_any_text_ends_as_the_librarys_one_reading(
    value: dict[str, Any], style: dict[str, Any], cuts: list[int], data: st.DataObject
) -> None:
    """Edited JSON, cut anywhere: complete where `loads_arguments` gives an object and equal to
    it, an error where it refuses, neither only where the text stops early."""
    text = json.dumps(value, **style)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 2))
        text = text[:at] + data.draw(edits) + text[at + cut :]
    reader = PartialArguments()
    try:
        expected: Any = loads_arguments(text)
    except (ValueError, Refused) as exc:
        expected = exc
    try:
        for fragment in split(text, cuts):
            reader.feed(fragment)
    except ArgumentsError:
        assert isinstance(expected, Exception) or not isinstance(expected, dict), text
        return
    if reader.done:
        assert tagged(reader.value()) == tagged(expected), text
    else:
        assert isinstance(expected, json.JSONDecodeError), text
        rest = text[expected.pos :].rstrip(" \t\n\r")
        # The stdlib points at the start of a literal or number the text stopped inside (`[f`,
        # `[1.`), and at an escape it refuses in a string that never closes (`{"\ud800`, where a
        # low surrogate may still follow): both are text that stops early too.
        stops_early = (
            not rest
            or any(word.startswith(rest) for word in ("true", "false", "null"))
            or re.fullmatch(r"[-+0-9.eE]*", rest) is not None
        )
        unterminated = expected.msg.startswith("Unterminated string") or (
            "escape" in expected.msg and '"' not in rest
        )
        assert stops_early or unterminated, text


# -- realistic arguments ---------------------------------------------------------------------


@pytest.mark.parametrize("arguments", [file_arguments, record_arguments])
def test_the_benchmark_shapes_read_as_json_loads(arguments: Callable[[int], str]) -> None:
    text = arguments(20_000)
    assert len(text) >= 20_000
    reader = PartialArguments()
    for start in range(0, len(text), 4):
        reader.feed(text[start : start + 4])
    assert reader.done and tagged(reader.value()) == tagged(json.loads(text))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(objects)
def test_a_whole_object_taken_parsed_reads_as_its_text_fed(value: dict[str, Any]) -> None:
    """The view of arguments taken already parsed (a wire that sends them decoded) holds and
    announces what feeding the text written from them would: the same value, the same changes
    in the same order, closed; and it is the view's own, not the object given."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    fed = PartialArguments(track_changes=True)
    fed.feed(text)
    taken = PartialArguments(track_changes=True)
    given_value = copy.deepcopy(value)
    taken.feed_parsed(given_value, len(text))
    assert taken.done and fed.done
    assert taken.changes() == fed.changes()
    assert taken.value() == fed.value() == value
    taken.value().clear()
    assert given_value == value
    with pytest.raises(ArgumentsError):
        taken.feed("x")


def test_parsed_arguments_are_taken_whole_or_not_at_all() -> None:
    view = PartialArguments()
    view.feed('{"a"')
    with pytest.raises(UsageError):
        view.feed_parsed({"a": 1}, 7)


def test_a_call_that_arrives_whole_and_decoded_is_not_scanned_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gemini sends a call's arguments as an object: the view takes that object, and no
    character of the text written from it goes through the scanner."""
    import toolcall

    scanned: list[int] = []
    scan = PartialArguments._scan
    monkeypatch.setattr(
        PartialArguments, "_scan", lambda self, text: (scanned.append(len(text)), scan(self, text))
    )
    arguments = {"path": "a.txt", "lines": ["x" * 1000, {"n": 1.5}]}
    part = {"functionCall": {"name": "write", "args": arguments}}
    event = {"candidates": [{"content": {"parts": [part]}, "finishReason": "STOP"}]}
    builder = toolcall.TurnBuilder(wire="gemini", partial_arguments=True)
    builder.feed(f"data: {json.dumps(event)}\n\n".encode())
    builder.finish()
    assert builder.partial_arguments(0) == arguments
    assert scanned == []
