"""A mutation fuzzer over real bodies: the library's promises, checked on bodies nobody wrote.

Seeds are the bodies of every cassette, synthesized and published (real recordings), and the
published recordings of the other wires (Responses, Anthropic, Gemini, Ollama). Hypothesis
draws a seed and a few mutations of three kinds: bytes (cut, insert a token, overwrite,
duplicate), events (drop, repeat, move, insert a crafted one, replay the stream as a second
generation, or the whole body twice) and JSON (replace a value anywhere in a chunk with an odd
one: NaN, Infinity, 1e400, integers past 64 bits or past 4,300 digits, lone surrogates, deep
nesting, blank arguments that are not JSON whitespace). The seeds include each wire's other
framings (Gemini's JSON array, NDJSON with CRLF line ends and a byte-order mark), one turn
written on every wire (`wire_bodies`), and, on every wire, turns whose events pass the 64 KB
from which an event is held as its bytes (`long_seeds`: long arguments, long reasoning and text
then a long call), so that mutations reach the long-event paths (`_framing.long_events.LongEvent`,
Responses' repetitions read in place). Then `check_body` asserts, for the mutated body:

1. only the library's errors: every way of reading it gives a turn or a `ToolCallError`, and
   the answer of every event decoded as text, none held as bytes (the full decoding);
2. one answer whatever is installed: the stdlib and orjson backends agree;
3. the fast path equals full decoding;
4. one answer however it is split: random re-splits, and one event per slice as a socket
   hands it over (the builder's shortcut), give the whole body's answer, also with every
   event held as its bytes, as a long one is (read from them by jiter on `auto`);
5. one answer with events on or off, and partial views on or off, and the events tell the
   same turn as `TurnDone` (each call started under the name the turn gives it, before its
   arguments);
6. two calls never share a number;
7. what ends a turn ends it: a turn whose wire's end arrived (and whose last event ended) is
   the same turn when the body is sent twice, with a `second_generation` diagnostic.

`make test` runs a short pass (test_fuzz.py); `make fuzz` runs this module for FUZZ_SECONDS. A
failing body found by either is written to `tests/fuzz_corpus/`, where test_fuzz.py replays every
file as a regression input.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import re
import sys
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests import wire_bodies
from tests.outcomes import BACKENDS, outcome
from toolcall import SSEDecoder
from toolcall._framing.json_documents import DocumentDecoder
from toolcall.harness.suite import cassettes, recordings

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"


@cache
def seeds() -> tuple[bytes, ...]:
    """Every cassette's body, synthesized and published, and every other wire's published
    recording (`cassettes/wires/`), in a stable order."""
    paths = sorted(ROOT.glob("cassettes/*/*.yaml")) + sorted(
        ROOT.glob("cassettes/*/published/*.yaml")
    )
    chat = tuple(cassettes.response_body(cassettes.load(path)) for path in paths)
    wires = [r for r in recordings.discover(ROOT / "cassettes") if r.wire != "chat"]
    framings = tuple(
        wire_bodies.as_json_array(r.body(), pretty=n % 2 == 1)
        for n, r in enumerate(r for r in wires if r.wire == "gemini")
    ) + tuple(
        b"\xef\xbb\xbf" + r.body().replace(b"\n", b"\r\n") for r in wires if r.wire == "ollama"
    )
    calls: list[wire_bodies.Call] = [("add", {"a": 1}), ("multiply", {"b": [2, "x"]})]
    written = tuple(wire_bodies.body(wire, calls, "Hi there") for wire in wire_bodies.WIRES)
    return chat + tuple(recording.body() for recording in wires) + framings + written + long_seeds()


#: Characters past the 64 KB from which an event is held as its bytes (`LONG_EVENT_BYTES` of
#: `_framing/sse.py`).
LONG = 66 * 1024


def long_seeds() -> tuple[bytes, ...]:
    """On every wire (Gemini's JSON array too): a call whose arguments pass 64 KB, streamed in
    pieces (Responses repeats them whole three times) and in one event; and long reasoning,
    a short text, then a long call. Responses' finished response repeats the items, as
    OpenAI's does. The bodies are written as ASCII: the arguments' escapes are then spelt as
    Responses' repetitions are read in place (`_fast.repeated_text`); the reasoning's `\\u` escapes
    of text outside ASCII are read the other way."""
    plain = ('Notes: "quoted" \\ tab\t end\n' * (LONG // 20))[:LONG]
    wide = ("Caf\u00e9 \u6f22\u5b57 \U0001f9ea \n" * (LONG // 10))[:LONG]
    calls: list[wire_bodies.Call] = [("write", {"path": "notes.md", "text": plain})]
    out = []
    for wire in wire_bodies.WIRES:
        turns = [
            wire_bodies.events(wire, calls, size=4093),
            wire_bodies.events(wire, calls, size=2 * LONG),
            wire_bodies.events(wire, calls, "Writing.", 4093, reasoning=wide),
        ]
        for items in turns:
            if wire == "responses":
                _repeat_output(items)
            out.append(wire_bodies.frame(wire, items))
            if wire == "gemini":
                out.append(wire_bodies.frame(wire, items, framing="json-array"))
    return tuple(out)


def _repeat_output(items: list[Any]) -> None:
    """Responses' events with the finished response holding every item whole, its text too."""
    output: list[Any] = []
    texts = {
        item["item_id"]: item["text"]
        for item in items
        if item["type"] in ("response.output_text.done", "response.reasoning_text.done")
    }
    for item in items:
        if item["type"] == "response.output_item.done":
            output.append(item["item"])
        elif item["type"] == "response.output_item.added" and item["item"]["id"] in texts:
            kind = "output_text" if item["item"]["type"] == "message" else "reasoning_text"
            content = [{"type": kind, "text": texts[item["item"]["id"]]}]
            output.append({**item["item"], "content": content})
    items[-1]["response"]["output"] = output


# -- what goes in ------------------------------------------------------------------------------

TOKENS = [
    b"data: ",
    b"data:",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b": keep-alive\n\n",
    b"data: [DONE]\n\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\\ud83d\\ude00",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"null",
    b"true",
    b"0",
    b"-1",
    b'"finish_reason":"length"',
    b'"finish_reason":"stop"',
    b'"finish_reason":"content_filter"',
    b'"index":1',
    b'"id":"other"',
    b'"error":{"message":"boom"}',
    b"\xe5\x8c\x97",
    b"\xe5",
    b"\xff",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    "\u00a0".encode(),
    "\u3000".encode(),
]

# Placeholders a mutated chunk is written with, replaced by text json.dumps cannot write.
_RAW = {
    "@@NAN@@": "NaN",
    "@@INF@@": "-Infinity",
    "@@BIG_FLOAT@@": "1e400",
    "@@LONG_INT@@": "9" * 4301,
    "@@DEEP@@": "[" * 1100 + "]" * 1100,
    "@@NEAR_DEEP@@": "[" * 120 + "]" * 120,
}

ODD_VALUES: list[Any] = [
    *_RAW,
    None,
    True,
    0,
    -1,
    1.5,
    2**63,
    2**64,
    -(2**63) - 1,
    10**30,
    "",
    " ",
    "\u00a0",
    "\x1c",
    "\ud800",
    "x\udfff",
    "\ud83d\ude00",
    "{}",
    "{",
    '{"a": NaN}',
    '{"a": 1e400}',
    '{"n": ' + "7" * 4301 + "}",
    "\u3000",
    "stop",
    "length",
    "content_filter",
    "tool_calls",
    [],
    {},
    [1],
    {"a": {"b": 1}},
    {"google": {"thought_signature": "sig"}},
]

# Keys the reader and the assembler look at: a mutation that lands on one of them matters most.
KEYS = [
    "index",
    "id",
    "type",
    "name",
    "arguments",
    "finish_reason",
    "content",
    "reasoning_content",
    "usage",
    "extra_content",
    "tool_calls",
    "choices",
    "delta",
    "error",
]


def events_of(body: bytes) -> list[bytes]:
    """The body's events: SSE events, or the lines of a newline-delimited JSON body."""
    end = rb"(?<=\n)" if body.lstrip()[:1] == b"{" else rb"(?<=\n\n)"
    return [event for event in re.split(end, body) if event]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a decoded chunk (shallow enough to stay cheap)."""
    out = [prefix]
    if len(prefix) < 8:
        if isinstance(value, dict):
            for key, item in value.items():
                out += _paths(item, (*prefix, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                out += _paths(item, (*prefix, i))
    return out


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return root


def _write(
    chunk: Any, ascii_only: bool, frame: tuple[bytes, bytes] = (b"data: ", b"\n\n")
) -> bytes:
    text = json.dumps(chunk, ensure_ascii=ascii_only, separators=(",", ":"))
    for marker, raw in _RAW.items():
        text = text.replace(f'"{marker}"', raw)
    # A raw lone surrogate cannot be UTF-8: written as the bytes a broken encoder would send.
    return frame[0] + text.encode("utf-8", "surrogatepass") + frame[1]


def _framed(event: bytes) -> tuple[tuple[bytes, bytes], bytes] | None:
    """An event's JSON and what frames it: an SSE event of one `data: ` line, after an `event:`
    line or not, or an NDJSON line; None for any other event."""
    if event.startswith(b"{"):
        return (b"", b"\n"), event
    head = event[: event.find(b"\n") + 1] if event.startswith(b"event:") else b""
    if not event.startswith(b"data: {", len(head)):
        return None
    return (head + b"data: ", b"\n\n"), event[len(head) + 6 :]


@st.composite
def json_mutation(draw: st.DrawFn, body: bytes) -> bytes:
    """One chunk with one value replaced, or one key's value set, anywhere in it."""
    events = events_of(body)
    chunks = [
        (i, framed)
        for i, e in enumerate(events)
        if len(e) < 200_000 and (framed := _framed(e)) is not None
    ]
    if not chunks:
        return body
    at, (frame, data) = draw(st.sampled_from(chunks))
    try:
        chunk = json.loads(data)
    except ValueError:
        return body
    value = draw(st.sampled_from(ODD_VALUES))
    if draw(st.booleans()):
        path = draw(st.sampled_from(_paths(chunk)))
    else:
        # Set one of the keys that matter on an object somewhere in the chunk.
        objects = [p for p in _paths(chunk) if isinstance(_get(chunk, p), dict)]
        path = (*draw(st.sampled_from(objects)), draw(st.sampled_from(KEYS)))
    chunk = _set(chunk, path, json.loads(json.dumps(value)))
    events[at] = _write(chunk, draw(st.booleans()), frame)
    return b"".join(events)


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        root = root[step]
    return root


@st.composite
def event_mutation(draw: st.DrawFn, body: bytes) -> bytes:
    events = events_of(body)
    if not events:
        return body
    kind = draw(st.sampled_from(["drop", "repeat", "move", "insert", "second_generation", "twice"]))
    at = draw(st.integers(0, len(events) - 1))
    if kind == "drop":
        del events[at]
    elif kind == "repeat":
        events.insert(at, events[at])
    elif kind == "move":
        events.insert(draw(st.integers(0, len(events) - 1)), events.pop(at))
    elif kind == "insert":
        crafted = draw(
            st.sampled_from(
                [
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter"}]},
                    {"id": "gen-2", "choices": [{"index": 0, "delta": {"content": "again"}}]},
                    {"error": {"message": "overloaded", "code": 529}},
                    {"choices": [], "usage": {"total_tokens": 2**64}},
                    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}]}}]},
                    {
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"tool_calls": [{"index": 0, "extra_content": {}}]},
                            }
                        ]
                    },
                ]
            )
        )
        events.insert(at, _write(crafted, draw(st.booleans())))
    elif kind == "twice":
        events += events  # the whole body again, as a relay that retried sends it
    else:
        # The whole stream again under another chunk id: a relay's second generation.
        again = [e.replace(b'"id":"', b'"id":"again-', 1) for e in events]
        events += again
    return b"".join(events)


@st.composite
def byte_mutation(draw: st.DrawFn, body: bytes) -> bytes:
    data = bytearray(body)
    at = draw(st.integers(0, len(data)))
    span = draw(st.integers(1, 16))
    kind = draw(st.sampled_from(["delete", "insert", "overwrite", "duplicate", "truncate"]))
    if kind == "delete":
        del data[at : at + span]
    elif kind == "insert":
        data[at:at] = draw(st.sampled_from(TOKENS))
    elif kind == "overwrite":
        data[at : at + span] = draw(st.binary(min_size=1, max_size=span))
    elif kind == "duplicate":
        data[at:at] = data[at : at + span * 8]
    else:
        del data[at:]
    return bytes(data)


class Body(bytes):
    """A body whose repr is short: hypothesis prints a failing example's draws."""

    def __repr__(self) -> str:
        digest = hashlib.sha256(self).hexdigest()[:16]
        return f"<body of {len(self)} bytes, sha256 {digest}..., kept in the corpus on failure>"


@st.composite
def mutated_bodies(draw: st.DrawFn) -> bytes:
    """A seed, often cut to a run of its events (so that a finding shrinks to a few), mutated."""
    body = draw(st.sampled_from(seeds()))
    if not draw(st.booleans()):
        events = events_of(body)
        start = draw(st.integers(0, len(events) - 1))
        count = draw(st.integers(1, 40))
        # The stream's own end (finish, usage, [DONE]) more often than not.
        tail = events[-3:] if draw(st.booleans()) and start + count < len(events) - 3 else []
        body = b"".join(events[start : start + count] + tail)
    for _ in range(draw(st.integers(1, 3))):
        mutate = draw(
            st.sampled_from([json_mutation, json_mutation, event_mutation, byte_mutation])
        )
        body = draw(mutate(body))
    return Body(body)


limits = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "max_calls": st.integers(1, 4),
        "max_argument_chars": st.integers(1, 2000),
        "max_text_chars": st.integers(1, 2000),
        "max_event_chars": st.integers(1, 3000) | st.integers(250, 600),
    },
)


# -- what must hold ----------------------------------------------------------------------------

#: The last body checked that failed, and its limits: hypothesis replays the smallest failing
#: example last, so after a failure this is the input worth keeping.
last_failure: tuple[bytes, dict[str, int]] | None = None


def check_body(body: bytes, cuts: list[int], limits: dict[str, int] | None = None) -> None:
    """The four promises for one body (see the module docstring); raises AssertionError."""
    global last_failure
    options = limits or {}
    try:
        answers = {
            (b, t): outcome(body, backend=b, fast=t, **options)
            for b in BACKENDS
            for t in (True, False)
        }
        with no_event_long():
            whole = outcome(body, backend="stdlib", fast=False, **options)
        for way, answer in answers.items():
            assert answer == whole, (
                f"{way} differs from stdlib, every event decoded: {_diff(answer, whole)}"
            )
        bounds = [0, *sorted(cuts), len(body)]
        pieces = [body[a:b] for a, b in itertools.pairwise(bounds)]
        resplit = outcome(pieces, **options)
        assert resplit == whole, f"split at {sorted(cuts)[:20]}: {_diff(resplit, whole)}"
        alone = outcome(events_of(body), **options)
        assert alone == whole, f"fed one event at a time: {_diff(alone, whole)}"
        with every_event_long():
            held = outcome(events_of(body), **options)
        assert held == whole, f"every event held as its bytes: {_diff(held, whole)}"
        quiet = outcome(pieces, events=False, **options)
        assert quiet == whole, f"events off differs: {_diff(quiet, whole)}"
        viewed = outcome(pieces, partial=True, **options)
        assert viewed == whole, f"partial views on differ: {_diff(viewed, whole)}"
        if whole[0] == "turn":
            turn = json.loads(whole[1])
            indices = [call["index"] for call in turn["tool_calls"]]
            assert len(set(indices)) == len(indices), f"calls share a number: {indices}"
            codes = [d["code"] for d in turn["diagnostics"]]
            ended = not {"done_absent", "unterminated_final_event"} & set(codes)
            if turn["finish_reason"] is not None and ended:
                twice = outcome(body + body, **options)
                assert twice[0] == "turn", f"the body sent twice: {_diff(twice, whole)}"
                again = json.loads(twice[1])
                assert (again["tool_calls"], again["content"]) == (
                    turn["tool_calls"],
                    turn["content"],
                ), "the body sent twice is another turn"
                assert "second_generation" in [d["code"] for d in again["diagnostics"]] or (
                    "second_generation" in codes
                ), "the body sent twice gives no second_generation"
    except BaseException:
        last_failure = (body, options)
        raise


@contextlib.contextmanager
def no_event_long() -> Iterator[None]:
    """Every event held and decoded as text however long: the full decoding, the reference
    the long-event paths must equal."""
    saved = SSEDecoder.long_from, DocumentDecoder.long_from
    SSEDecoder.long_from = DocumentDecoder.long_from = sys.maxsize
    try:
        yield
    finally:
        SSEDecoder.long_from, DocumentDecoder.long_from = saved


@contextlib.contextmanager
def every_event_long() -> Iterator[None]:
    """Every SSE event and document held as its bytes however short, the path a long one
    takes (`_framing.long_events.LongEvent`)."""
    saved = SSEDecoder.long_from, DocumentDecoder.long_from
    SSEDecoder.long_from = DocumentDecoder.long_from = 1
    try:
        yield
    finally:
        SSEDecoder.long_from, DocumentDecoder.long_from = saved


def _diff(got: tuple[str, str], want: tuple[str, str]) -> str:
    """Two answers, cut to where they start to differ."""
    pairs = enumerate(zip(got[1], want[1], strict=False))
    at = next((i for i, (x, y) in pairs if x != y), min(len(got[1]), len(want[1])))
    start = max(0, at - 100)
    shown = [f"{kind}: ...{text[start : at + 200]}" for kind, text in (got, want)]
    return "\n  got  {}\n  want {}".format(*shown)


@st.composite
def cut_points(draw: st.DrawFn, body: bytes) -> list[int]:
    return draw(st.lists(st.integers(0, len(body)), max_size=10))


def run(examples: int, *, derandomize: bool) -> None:
    """One hypothesis run of `examples` mutated bodies."""

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None if derandomize else settings.default.database,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def property_(data: st.DataObject) -> None:
        body = data.draw(mutated_bodies(), label="body")
        check_body(body, data.draw(cut_points(body), label="cuts"), data.draw(limits))

    property_()


def keep(body: bytes, limits: dict[str, int]) -> Path:
    """Write a failing body (and its limits) into the corpus; returns its path."""
    CORPUS.mkdir(exist_ok=True)
    name = hashlib.sha256(body + json.dumps(limits, sort_keys=True).encode()).hexdigest()[:16]
    path = CORPUS / f"found-{name}.sse"
    path.write_bytes(body)
    if limits:
        path.with_suffix(".limits.json").write_text(json.dumps(limits, sort_keys=True) + "\n")
    return path


def corpus() -> list[tuple[str, bytes, dict[str, int]]]:
    """(name, body, limits) of every regression input kept in the corpus."""
    out = []
    for path in sorted(CORPUS.glob("*.sse")):
        sidecar = path.with_suffix(".limits.json")
        limits = json.loads(sidecar.read_text()) if sidecar.exists() else {}
        out.append((path.stem, path.read_bytes(), limits))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600, help="how long to fuzz")
    parser.add_argument("--batch", type=int, default=500, help="examples per hypothesis run")
    args = parser.parse_args(argv)
    start = time.monotonic()
    batches = 0
    while time.monotonic() - start < args.seconds:
        try:
            run(args.batch, derandomize=False)
        except Exception:
            if last_failure is not None:
                path = keep(*last_failure)
                print(f"\nfuzz: failing body kept as {path.relative_to(ROOT)}", file=sys.stderr)
            raise
        batches += 1
        print(f"fuzz: {batches * args.batch} bodies clean, {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
