"""The streams the bench feeds: one function per shape of real traffic.

Every stream is OpenAI-shaped (the most common envelope) unless the shape is another provider's,
with arguments, text and reasoning cut into 4-character pieces, the finest granularity seen on the
wire (DeepSeek), which maximises the cost per chunk. Each returns the SSE body and its chunk
payloads (the floor decodes those), and how many bytes of arguments (UTF-8) it carries: memory
is reported as a multiple of that.
"""

from __future__ import annotations

import json
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

    @property
    def events(self) -> list[bytes]:
        """The body as a socket delivers it: one SSE event per slice."""
        return [event + b"\n\n" for event in self.body.split(b"\n\n") if event]


def argument_text(size: int, seed: int) -> str:
    """A JSON object of about `size` characters with escapes and non-ASCII text in it."""
    words = ["alpha", 'b\\"eta\\"', "gamma", "δέλτα", "上海", "line\\nbreak", "🧪"]
    body = []
    total = 0
    n = seed
    while total < size:
        word = words[n % len(words)]
        body.append(word)
        total += len(word) + 1
        n += 1
    return '{"text":"' + " ".join(body) + '"}'


def _chunk(delta: dict[str, object], finish: str | None, obfuscation: int | None) -> str:
    tail = "" if obfuscation is None else ',"obfuscation":"%s"' % ("x" * (obfuscation % 9 + 1))
    finish_text = "null" if finish is None else json.dumps(finish)
    return ENVELOPE % (json.dumps(delta, ensure_ascii=False), finish_text, tail)


def _stream(payloads: list[str], argument_bytes: int) -> Stream:
    body = "".join(f"data: {p}\n\n" for p in payloads) + "data: [DONE]\n\n"
    return Stream(body.encode(), payloads, argument_bytes)


def calls(count: int, size_per_call: int, *, obfuscation: bool = False) -> Stream:
    """`count` parallel calls whose fragments interleave round-robin (OpenAI's parallel calls)."""
    payloads = []
    pieces = []
    chars = 0
    for i in range(count):
        text = argument_text(size_per_call, i)
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
