"""Arguments a wire sends as an object (Gemini's `args`, Vertex's `partialArgs`, Ollama's
`arguments`) are written as text once and kept as the object: never parsed back, and the text
the same on both JSON backends, the text stdlib `json.dumps` writes.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from tests.helpers.outcomes import BACKENDS, outcome
from toolcall import _json
from toolcall._turn import call_watcher, validation

#: Floats orjson writes otherwise than Python's repr (exponents -5 to -9), and their neighbours.
FLOATS = [1e-05, 2.5e-06, -7.25e-07, 1e-08, 9.99e-09, 1e-10, 0.0001, 1e16, 1e22, -0.0, 0.1]
ARGUMENTS: dict[str, Any] = {
    "floats": FLOATS,
    "text": 'e-mail 0.00001 1e-5 "quoted" \\ \x00\x1f\x7f \u2028 é 上海 🧪',
    "big": 2**70,  # read from the event as a double, as orjson reads it
    "nested": [{"a": [[], {}]}, None, True, 3],
}


def stdlib_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events).encode()


def gemini(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def gemini_body(arguments: dict[str, Any]) -> bytes:
    return sse(gemini({"functionCall": {"name": "f", "args": arguments}}, finish="STOP"))


def vertex_body(arguments: dict[str, Any]) -> bytes:
    """Each member of `arguments` in one `partialArgs` entry, under the key its kind takes."""

    def entry(key: str, value: Any) -> dict[str, Any]:
        kinds = {str: "stringValue", bool: "boolValue", list: "listValue", dict: "structValue"}
        kind = "nullValue" if value is None else kinds.get(type(value), "numberValue")
        return {"jsonPath": f"$.{key}", kind: value}

    return sse(
        gemini({"functionCall": {"name": "f", "willContinue": True}}),
        *(
            gemini({"functionCall": {"partialArgs": [entry(*member)], "willContinue": True}})
            for member in arguments.items()
        ),
        gemini({"functionCall": {}}),
        gemini({"text": ""}, finish="STOP"),
    )


def ollama_body(arguments: dict[str, Any]) -> bytes:
    lines = [
        {
            "message": {
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": arguments}}],
            }
        },
        {"message": {"content": ""}, "done": True, "done_reason": "stop"},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


BODIES: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "gemini": gemini_body,
    "vertex": vertex_body,
    "ollama": ollama_body,
}


def read_back(arguments: dict[str, Any]) -> Any:
    """What the event's decoder made of `arguments`: integers past 64 bits become doubles."""
    return json.loads(
        json.dumps(arguments), parse_int=lambda t: int(t) if abs(int(t)) < 2**63 else float(t)
    )


@pytest.mark.parametrize("events", [False, True])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wire", list(BODIES))
def test_arguments_sent_as_an_object_are_never_parsed_back(
    wire: str, backend: str, events: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[str] = []

    def counting(text: str) -> Any:
        parsed.append(text)
        return _json.loads_arguments(text)

    monkeypatch.setattr(validation, "loads_arguments", counting)
    monkeypatch.setattr(call_watcher, "loads_arguments", counting)
    arguments = ARGUMENTS
    builder = toolcall.TurnBuilder(json_backend=backend, events=events)
    got = builder.feed(BODIES[wire](arguments)) + builder.finish()
    last = got[-1]
    assert isinstance(last, toolcall.TurnDone)
    turn = last.turn
    assert parsed == []
    assert turn.arguments == (read_back(arguments),)
    assert turn.tool_calls[0].function.arguments == stdlib_text(read_back(arguments))
    if events:
        done = [e for e in got if isinstance(e, toolcall.ToolCallDone)]
        assert [d.arguments for d in done] == list(turn.arguments)


@pytest.mark.parametrize("wire", list(BODIES))
def test_both_backends_give_one_answer_with_the_text_the_stdlib_writes(wire: str) -> None:
    body = BODIES[wire](ARGUMENTS)
    answers = {outcome(body, backend=backend) for backend in BACKENDS}
    assert len(answers) == 1
    turn = toolcall.assemble(body, json_backend="orjson")
    text = turn.tool_calls[0].function.arguments
    assert text == stdlib_text(turn.arguments[0])
    assert _json.loads_arguments(text) == turn.arguments[0]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
).filter(lambda value: not _json.holds_surrogate(stdlib_text(value)))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), JSON_VALUES, max_size=4))
def test_the_orjson_writer_writes_what_the_stdlib_writes(value: dict[str, Any]) -> None:
    assert _json.writer("orjson")(value) == _json.writer("stdlib")(value) == stdlib_text(value)


@pytest.mark.parametrize(
    "otherwise",
    [
        lambda value: stdlib_text(value).replace("e+", "E+").encode(),  # another float format
        lambda value: stdlib_text(value).replace("\u2028", "\\u2028").encode(),  # another escape
    ],
    ids=["float", "escape"],
)
def test_an_orjson_that_writes_otherwise_is_not_used_to_write(
    otherwise: Callable[[Any], bytes],
) -> None:
    assert _json._writes_like_stdlib(orjson.dumps)
    assert not _json._writes_like_stdlib(otherwise)


@pytest.mark.parametrize(
    ("value", "again"),
    [
        ({"text": "re-read the one-time e-mail, type-5 e-7"}, False),
        ({"text": "0.00001 and 1e-6 as text", "n": 10.00001, "m": [1e-3, 2.5e16]}, False),
        ({"n": 1e-6}, True),
        ({"n": [-2.5e-7]}, True),
        ({"n": 0.000015}, True),
    ],
)
def test_only_a_float_orjson_writes_otherwise_is_written_again(
    value: dict[str, Any], again: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prose holds `e-` and `.0000` all the time: writing its text a second time with the
    stdlib is for floats with exponent -5 to -9 only, and the text is the stdlib's either way."""
    written: list[object] = []
    stdlib = _json._stdlib_dumps

    def counted(value: dict[str, Any]) -> str:
        written.append(value)
        return stdlib(value)

    dumps = _json.writer("orjson")
    monkeypatch.setattr(_json, "_stdlib_dumps", counted)
    assert dumps(value) == stdlib_text(value)
    assert bool(written) == again


def test_a_long_event_reads_alike_on_both_backends_without_orjsons_memory() -> None:
    """A megabyte event (a whole call, Responses' `.done`) is read by the stdlib's scanner on
    either backend: the same value and the same refusals, and little memory beyond the value,
    where orjson's parser set aside about five times the text."""
    words = 'δέλτα 🧪 re-read \\"quoted\\" line\\nbreak ' * 20_000
    text = f'{{"type":"done","arguments":"{words}","n":[1,-0.5,1.5e-7]}}'
    assert len(text) > _json._LONG_TEXT
    for name in ("orjson", "stdlib"):
        loads = _json.backend(name)
        tracemalloc.start()
        try:
            value = loads(text)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert value == json.loads(text)
        assert peak < 2.5 * sys.getsizeof(text), name
        for refused in ("NaN", '"\\ud800"', "[" * 200 + "]" * 200):
            broken = text[:-1] + f',"x":{refused}}}'
            with pytest.raises(_json.Refused) as caught:
                loads(broken)
            with pytest.raises(_json.Refused) as reference:
                _json.backend("stdlib")(broken)
            assert str(caught.value) == str(reference.value)
