"""The streams the bench feeds: one function per shape of real traffic.

Every stream is OpenAI-shaped (the most common envelope) unless the shape is another provider's
or another wire's (`wire_call`), with arguments, text and reasoning cut into 4-character pieces,
the finest granularity seen on the wire (DeepSeek), which maximises the cost per chunk. Each
returns the body and its event payloads (the floor decodes those), and how many bytes of
arguments (UTF-8) it carries: memory is reported as a multiple of that.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ENVELOPE = (
    '{"id":"chatcmpl-B9yQ3bench","object":"chat.completion.chunk","created":1760000000,'
    '"model":"gpt-4o-mini","system_fingerprint":"fp_bench","usage":null,"choices":[{"index":0,'
    '"delta":%s,"logprobs":null,"finish_reason":%s}]%s}'
)
PIECE = 4


@dataclass(frozen=True)
class Stream:
    body: bytes
    payloads: list[str]
    argument_bytes: int
    #: The API the body is in (`toolcall.assemble(wire=...)`); Ollama's is NDJSON, not SSE.
    wire: str = "chat"
    #: What ends each line of the body (`LINE_ENDS`).
    line_end: str = "\n"

    @property
    def events(self) -> list[bytes]:
        """The body as a socket delivers it: one SSE event (or one NDJSON line) per slice."""
        end = self.line_end.encode()
        if self.wire != "ollama":
            end *= 2
        return [event + end for event in self.body.split(end) if event]


def argument_text(size: int, seed: int, *, astral: bool = True) -> str:
    """A JSON object of about `size` characters with escapes and non-ASCII text in it.

    `astral` puts an emoji among its words: one character outside the BMP makes Python store
    four bytes a character for the whole `str`, so memory is also measured without it (a check
    mark in its place), the way most text, code and prose outside chat, is held.
    """
    emoji = "🧪" if astral else "✓"
    words = ["alpha", 'b\\"eta\\"', "gamma", "δέλτα", "上海", "line\\nbreak", emoji, "re-read"]
    body = []
    total = 0
    n = seed
    while total < size:
        word = words[n % len(words)]
        body.append(word)
        total += len(word) + 1
        n += 1
    return '{"text":"' + " ".join(body) + '"}'


def _drawn(draw: Callable[[random.Random], str]) -> tuple[str, ...]:
    """4,096 values drawn from a fixed seed, which events take in turn: the same streams on
    every run, and no draw per event while a megabyte's stream is built."""
    rng = random.Random(26)
    return tuple(draw(rng) for _ in range(4096))


_OBFUSCATION = _drawn(
    lambda rng: "".join(rng.choices(string.ascii_letters + string.digits, k=rng.randrange(16)))
)
_PADDING = _drawn(lambda rng: " " * rng.randrange(16))


def obfuscation(n: int) -> str:
    """OpenAI's `obfuscation` value for the `n`th event, as recorded: random letters and digits,
    0 to 15 of them, a different length every time (cassettes/openai/published/*gpt-5*,
    cassettes/wires/responses/fantasy_responses_gpt-5_multi_tool.sse)."""
    return _OBFUSCATION[n % len(_OBFUSCATION)]


def padding(n: int) -> str:
    """Anthropic's padding of the `n`th event, as recorded: 0 to 15 spaces before the event's
    closing brace, a different number every time (cassettes/wires/anthropic/, the SSE
    recordings from Anthropic's own API)."""
    return _PADDING[n % len(_PADDING)]


def _chunk(delta: dict[str, object], finish: str | None, obfuscated: int | None) -> str:
    tail = "" if obfuscated is None else f',"obfuscation":"{obfuscation(obfuscated)}"'
    finish_text = "null" if finish is None else json.dumps(finish)
    return ENVELOPE % (json.dumps(delta, ensure_ascii=False), finish_text, tail)


def _stream(payloads: list[str], argument_bytes: int) -> Stream:
    body = "".join(f"data: {p}\n\n" for p in payloads) + "data: [DONE]\n\n"
    return Stream(body.encode(), payloads, argument_bytes)


def calls(
    count: int, size_per_call: int, *, obfuscation: bool = False, astral: bool = True
) -> Stream:
    """`count` parallel calls whose fragments interleave round-robin (OpenAI's parallel calls)."""
    payloads = []
    pieces = []
    chars = 0
    for i in range(count):
        text = argument_text(size_per_call, i, astral=astral)
        chars += len(text.encode())
        head = {
            "tool_calls": [
                {
                    "index": i,
                    "id": f"call_{i:024d}",
                    "type": "function",
                    "function": {"name": "write", "arguments": ""},
                }
            ]
        }
        payloads.append(_chunk(head, None, 0 if obfuscation else None))
        pieces.append([text[j : j + PIECE] for j in range(0, len(text), PIECE)])
    for j in range(max(len(p) for p in pieces)):
        for i, fragments in enumerate(pieces):
            if j < len(fragments):
                delta = {"tool_calls": [{"index": i, "function": {"arguments": fragments[j]}}]}
                payloads.append(_chunk(delta, None, j if obfuscation else None))
    payloads.append(_chunk({}, "tool_calls", 0 if obfuscation else None))
    return _stream(payloads, chars)


def text(size: int, *, key: str = "content", then_call: bool = False) -> Stream:
    """`size` characters of text (or of reasoning, by `key`), then optionally one 2 KB call."""
    words = argument_text(size, 3)[9:-2].replace("\\", "")
    payloads = [_chunk({"role": "assistant", key: ""}, None, None)]
    payloads += [
        _chunk({key: words[j : j + PIECE]}, None, None) for j in range(0, len(words), PIECE)
    ]
    chars = 0
    if then_call:
        call = calls(1, 2048)
        payloads += call.payloads[:-1]
        chars = call.argument_bytes
    payloads.append(_chunk({}, "tool_calls" if then_call else "stop", None))
    return _stream(payloads, chars)


def whole_calls(count: int, size_per_call: int) -> Stream:
    """Each call whole in one chunk, without an index (Gemini's compat endpoint, FACTS.md §8)."""
    payloads = []
    chars = 0
    for i in range(count):
        arguments = argument_text(size_per_call, i)
        chars += len(arguments.encode())
        call = {
            "id": f"function-call-{i}",
            "type": "function",
            "function": {"name": "write", "arguments": arguments},
        }
        payloads.append(_chunk({"role": "assistant", "tool_calls": [call]}, None, None))
    payloads.append(_chunk({}, "stop", None))
    return _stream(payloads, chars)


def name_fragments(count: int) -> Stream:
    """One call whose name arrives in `count` one-character fragments (a linearity probe)."""
    head = {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "f"}}]}
    piece = {"tool_calls": [{"index": 0, "function": {"name": "a"}}]}
    payloads = [_chunk(head, None, None)] + [_chunk(piece, None, None)] * count
    payloads.append(
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}, None, None)
    )
    payloads.append(_chunk({}, "tool_calls", None))
    return _stream(payloads, 2)


def extra_content_deltas(count: int) -> Stream:
    """One call with `count` one-key `extra_content` deltas before its arguments (a probe)."""
    head = {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "f"}}]}
    payloads = [_chunk(head, None, None)]
    payloads += [
        _chunk({"tool_calls": [{"index": 0, "extra_content": {f"k{i}": i}}]}, None, None)
        for i in range(count)
    ]
    payloads.append(
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}, None, None)
    )
    payloads.append(_chunk({}, "tool_calls", None))
    return _stream(payloads, 2)


# -- the other wires -------------------------------------------------------------------------
#
# One call of about `size` bytes of arguments on each wire, in the order of events and with the
# fields of its published recordings (cassettes/wires/<wire>/, named in each function), cut into
# the same 4-character pieces where the wire streams arguments. Ids are fixed made-up values.

#: Every wire, each with the shape its bench rows are built from.
WIRES = ("chat", "responses", "anthropic", "gemini", "vertex", "ollama")
#: The wires that send a call whole, in one event.
WHOLE_CALL_WIRES = ("gemini", "ollama")
#: The line ends of each wire's recordings where they are not LF: Google's SSE ends every line
#: with CRLF (cassettes/wires/gemini/fantasy_*.sse, pydantic-ai_*.sse). Vertex's recording is
#: a list of chunks, which shows none, and the others' recordings end their lines with LF.
LINE_ENDS = {"gemini": "\r\n"}


def wire_call(wire: str, size: int, *, astral: bool = True, line_end: str | None = None) -> Stream:
    """One call of `size` bytes of arguments on `wire` (one of `WIRES`; "vertex" is the gemini
    wire with Vertex's streamed `partialArgs`; "chat" has OpenAI's `obfuscation`), its lines
    ended as the wire's recordings end them, or by `line_end`."""
    end = LINE_ENDS.get(wire, "\n") if line_end is None else line_end
    if wire == "chat":
        stream = calls(1, size, obfuscation=True, astral=astral)
        if end == "\n":
            return stream
        body = stream.body.replace(b"\n", end.encode())
        return Stream(body, stream.payloads, stream.argument_bytes, "chat", end)
    text = argument_text(size, 0, astral=astral)
    arguments = json.loads(text)
    payloads = _WIRE_SHAPES[wire](text, arguments)
    chars = len(text.encode())
    if wire == "ollama":
        body = (end.join(payloads) + end).encode()
        return Stream(body, payloads, chars, "ollama", end)
    if wire == "vertex":
        return _stream_of(payloads, chars, "gemini", None, end)
    names = [json.loads(p)["type"] for p in payloads] if wire != "gemini" else None
    return _stream_of(payloads, chars, wire, names, end)


def _stream_of(
    payloads: list[str], chars: int, wire: str, events: list[str] | None, end: str
) -> Stream:
    """SSE as the wire frames it: `event:` lines where the recordings have them, no `[DONE]`,
    each line ended by `end`."""
    if events is None:
        body = "".join(f"data: {p}{end}{end}" for p in payloads)
    else:
        body = "".join(
            f"event: {e}{end}data: {p}{end}{end}" for e, p in zip(events, payloads, strict=True)
        )
    return Stream(body.encode(), payloads, chars, wire, end)


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _pieces(text: str) -> list[str]:
    return [text[j : j + PIECE] for j in range(0, len(text), PIECE)]


def _responses(text: str, arguments: object) -> list[str]:
    """After fantasy_responses_gpt-5_multi_tool.sse: created, in_progress, a function_call item
    added, argument deltas by item id with `obfuscation`, `.done` and the item done each repeating
    the arguments, and `response.completed` carrying the whole output once more."""
    item_id = "fc_0bench0000000000000000000000000000000000000000000000"
    call: dict[str, object] = {
        "id": item_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
    }
    call |= {"call_id": "call_bench00000000000000000", "name": "write"}
    response: dict[str, object] = {
        "id": "resp_bench",
        "object": "response",
        "status": "in_progress",
    }
    response |= {"model": "gpt-5-2025-08-07", "output": [], "usage": None}
    events: list[dict[str, object]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
        {"type": "response.output_item.added", "item": call, "output_index": 0},
    ]
    for n, piece in enumerate(_pieces(text)):
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "delta": piece,
                "item_id": item_id,
                "obfuscation": obfuscation(n),
                "output_index": 0,
            }
        )
    done = call | {"status": "completed", "arguments": text}
    events += [
        {"type": "response.function_call_arguments.done", "arguments": text, "item_id": item_id},
        {"type": "response.output_item.done", "item": done, "output_index": 0},
        {
            "type": "response.completed",
            "response": response | {"status": "completed", "output": [done]},
        },
    ]
    return [_dump(e | {"sequence_number": n}) for n, e in enumerate(events)]


def _anthropic(text: str, arguments: object) -> list[str]:
    """After fantasy_claude-sonnet-4_multi_tool.sse: message_start, a ping, a tool_use block
    opened with `input: {}`, `input_json_delta` fragments (the first one empty), the block
    stopped, `message_delta` with `stop_reason: "tool_use"`, message_stop; every event but
    message_start and the ping padded before its closing brace as recorded (`padding`)."""
    message: dict[str, object] = {
        "model": "claude-sonnet-4-20250514",
        "id": "msg_bench",
        "type": "message",
    }
    message |= {"role": "assistant", "content": [], "stop_reason": None, "usage": {}}
    block = {"type": "tool_use", "id": "toolu_bench000000000000000", "name": "write", "input": {}}
    events: list[dict[str, object]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "ping"},
    ]
    for piece in ["", *_pieces(text)]:
        delta = {"type": "input_json_delta", "partial_json": piece}
        events.append({"type": "content_block_delta", "index": 0, "delta": delta})
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    padded = [_dump(e)[:-1] + padding(n) + "}" for n, e in enumerate(events)]
    return [_dump(events[0]), padded[1], '{"type": "ping"}', *padded[3:]]


_GEMINI_TAIL = {"modelVersion": "gemini-3-pro-preview", "responseId": "bench"}


def _gemini(text: str, arguments: object) -> list[str]:
    """After fantasy_gemini-3-pro-preview_multi_tool.sse: the call whole, as one `functionCall`
    part with its `id`, `args` as an object and a `thoughtSignature` beside it, with
    `finishReason: "STOP"`; nothing streams but the one chunk."""
    part = {
        "functionCall": {"name": "write", "args": arguments, "id": "bench0001"},
        "thoughtSignature": "CloBvj72" * 16,
    }
    candidate = {"content": {"parts": [part], "role": "model"}, "finishReason": "STOP"}
    return [_dump({"candidates": [candidate | {"index": 0}], **_GEMINI_TAIL})]


def _vertex(text: str, arguments: object) -> list[str]:
    """After vercel-ai_vertex_gemini-3.1-pro-preview_partialArgs_parallel.jsonl: the name with
    `willContinue`, the string argument in `partialArgs` pieces (`jsonPath`, `stringValue`,
    `willContinue`), an empty piece ending the string, then the empty `functionCall: {}` that
    closes the call, with `finishReason: "STOP"`."""
    assert isinstance(arguments, dict)
    (key, value), *_ = arguments.items()

    def chunk(call: dict[str, object], finish: bool = False) -> str:
        candidate: dict[str, object] = {
            "content": {"role": "model", "parts": [{"functionCall": call}]}
        }
        if finish:
            candidate["finishReason"] = "STOP"
        return _dump({"candidates": [candidate], **_GEMINI_TAIL})

    payloads = [chunk({"name": "write", "willContinue": True})]
    for piece in _pieces(value):
        path = {"jsonPath": f"$.{key}", "stringValue": piece, "willContinue": True}
        payloads.append(chunk({"partialArgs": [path], "willContinue": True}))
    end = {"jsonPath": f"$.{key}", "stringValue": ""}
    payloads.append(chunk({"partialArgs": [end], "willContinue": True}))
    payloads.append(chunk({}, finish=True))
    return payloads


def _ollama(text: str, arguments: object) -> list[str]:
    """After fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool.ndjson: a few thinking lines, the
    call whole in one line (`arguments` an object, `index` inside `function`), then the closing
    line with `done: true` and `done_reason: "stop"`."""
    head = {"model": "gpt-oss:20b", "created_at": "2026-01-05T11:27:39.844795985Z"}
    lines = [
        head | {"message": {"role": "assistant", "content": "", "thinking": word}, "done": False}
        for word in ("We", " need", " to", " write")
    ]
    call = {"id": "call_bench", "function": {"index": 0, "name": "write", "arguments": arguments}}
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    lines.append(head | {"message": message, "done": False})
    end = {"role": "assistant", "content": ""}
    lines.append(head | {"message": end, "done": True, "done_reason": "stop", "eval_count": 40})
    return [_dump(line) for line in lines]


_WIRE_SHAPES = {
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "vertex": _vertex,
    "ollama": _ollama,
}
