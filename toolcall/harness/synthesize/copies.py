"""The other wires synthesized by copying recorded events: Responses, Anthropic Messages, Gemini.

A provider that offers another wire (Responses, Anthropic Messages, Gemini's own) beside chat
must give the same turn on each (the cross-wire check), and a reader of each wire must be proved
against every scenario, not only against the few recordings published for it. So each
scenario's reply is rendered on each wire a provider offers, as
`cassettes/<provider>/wires/<wire>/<scenario>.yaml`.

The shape comes from real recordings, not from memory: every event is a copy of the first event
of the same type (and item or block type) in the wire recordings the rendering `follows`, with
its ids, text, arguments and counts replaced. Key order, envelope fields and quirks such as
OpenAI's `obfuscation` or Claude's `caller` therefore stay the recordings' own, and the structure
check (`skeleton`) holds a rendering to them. A reply that needs an event none of the followed
recordings shows (a text message where only tool calls were recorded, a thinking block on a wire
with no recorded thinking) is not rendered: `Unshown` names what is missing, and the cell is
left out instead of invented.

Which recordings a provider's rendering follows, how its ids look and how its fragments are cut
is data, the `synthesis` block of the provider's wire offer in providers.yaml (`Shape`), beside
the recordings it rests on; what is here is each wire's grammar, never a provider's name.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..reading import wires
from ..suite import recordings
from ..suite.cassettes import WIRES
from ..suite.profiles import Cell, Provider, Suite
from .templates import SynthesisError, cut, generate


class Unshown(SynthesisError):
    """The reply needs an event that none of the followed recordings shows."""


@dataclass(frozen=True)
class Shape:
    """How one provider's stream on one wire is rendered, and the recordings it follows: the
    `synthesis` block of its wire offer in providers.yaml."""

    follows: tuple[str, ...]
    #: id formats (`templates.generate`); `{kind}` is the item's prefix on Responses.
    ids: Mapping[str, str]
    #: argument and text fragment sizes (`templates.cut`); None sends each whole.
    fragment: Mapping[str, Any] | None

    @classmethod
    def of(cls, block: Mapping[str, Any]) -> Shape:
        """The shape a wire offer's `synthesis` block (checked by providers.schema.json) says."""
        return cls(tuple(block["follows"]), dict(block["ids"]), block.get("fragment"))


#: Responses item types and the prefix OpenAI gives their ids.
_ITEM_PREFIX = {"function_call": "fc", "message": "msg", "reasoning": "rs"}


def follows_paths(suite: Suite, wire: str, shape: Shape) -> list[str]:
    """The repository paths of the recording bodies a shape follows (what a cassette cites)."""
    folder = suite.cassettes / WIRES / wire
    return [
        str(path.relative_to(suite.root))
        for name in shape.follows
        for path in recordings.body_paths(folder, name)
    ]


#: The scenarios' `tool_choice: auto` in each wire's words (no scenario asks for another).
_AUTO: dict[str, Any] = {
    "responses": "auto",
    "anthropic": {"type": "auto"},
    "gemini": {"functionCallingConfig": {"mode": "AUTO"}},
}
#: What `reasoning_effort` (chat's way to ask for reasoning) is on each other wire.
_THINK: dict[str, tuple[str, Any]] = {
    "responses": ("reasoning", {"effort": "low", "summary": "auto"}),
    "anthropic": ("thinking", {"type": "enabled", "budget_tokens": 1024}),
    "ollama": ("think", True),
}


def wire_request(wire: str, chat: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario's chat request in the wire's own words: the same system prompt, turns
    (an assistant turn's calls and the tools' results included), tools, tool choice, token
    limit and ask for reasoning; chat-only options such as `stream_options` have no
    counterpart. `stream` is kept as given (streamed when absent); Gemini says it in the path.
    A message the wire cannot word is a `SynthesisError`."""
    system = "\n".join(str(m["content"]) for m in chat["messages"] if m["role"] == "system")
    turns = [m for m in chat["messages"] if m["role"] != "system"]
    strange = [m["role"] for m in turns if m["role"] not in ("user", "assistant", "tool")]
    if strange:
        raise SynthesisError(f"{wire}: only system, user, assistant and tool messages are worded")
    functions = [t["function"] for t in chat.get("tools") or []]
    choice = _choice(wire, chat.get("tool_choice", "auto"))
    stream = chat.get("stream", True)
    limit = chat.get("max_tokens") or chat.get("max_completion_tokens")
    if wire == "responses":
        body: dict[str, Any] = {
            "model": chat["model"],
            "stream": stream,
            "instructions": system,
            "input": [item for m in turns for item in _responses_items(m)],
            "tools": [{"type": "function", **f} for f in functions],
            "tool_choice": choice,
        }
        body.update({"max_output_tokens": limit} if limit else {})
    elif wire == "anthropic":
        tools = [
            {
                "name": f["name"],
                "description": f.get("description", ""),
                "input_schema": f["parameters"],
            }
            for f in functions
        ]
        body = {
            "model": chat["model"],
            "max_tokens": limit or 4096,
            "stream": stream,
            "system": system,
            "messages": _anthropic_messages(turns),
            "tools": tools,
            "tool_choice": choice,
        }
    elif wire == "ollama":
        body = {
            "model": chat["model"],
            "stream": stream,
            "messages": [*_system(system), *(_ollama_message(m) for m in turns)],
            "tools": list(chat.get("tools") or []),
        }
        body.update({"options": {"num_predict": limit}} if limit else {})
    else:
        body = _gemini_request(system, turns, functions, choice, limit)
    if chat.get("reasoning_effort") and wire in _THINK:
        body[_THINK[wire][0]] = _THINK[wire][1]
    elif chat.get("reasoning_effort"):
        body.setdefault("generationConfig", {})["thinkingConfig"] = {"includeThoughts": True}
    return body


def _choice(wire: str, choice: Any) -> Any:
    """Chat's `tool_choice` (`auto`, `required`, `none` or one function) in the wire's words."""
    if wire == "ollama":
        return None  # Ollama has no tool choice
    if choice == "auto":
        return _AUTO[wire]
    named = choice["function"]["name"] if isinstance(choice, Mapping) else None
    if wire == "responses":
        return {"type": "function", "name": named} if named else choice
    if wire == "anthropic":
        kinds = {"required": {"type": "any"}, "none": {"type": "none"}}
        return {"type": "tool", "name": named} if named else kinds[choice]
    mode = "NONE" if choice == "none" else "ANY"
    config: dict[str, Any] = {"mode": mode}
    if named:
        config["allowedFunctionNames"] = [named]
    return {"functionCallingConfig": config}


def _system(system: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system}] if system else []


def _calls(message: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """An assistant message's calls as (id, name, parsed arguments)."""
    return [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"] or "{}"))
        for c in message.get("tool_calls") or []
    ]


def _responses_items(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    if message["role"] == "tool":
        output = {"call_id": message["tool_call_id"], "output": message["content"]}
        return [{"type": "function_call_output", **output}]
    items: list[dict[str, Any]] = []
    if message.get("content") or message["role"] == "user":
        items.append({"role": message["role"], "content": message.get("content") or ""})
    for call_id, name, arguments in _calls(message):
        items.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments, ensure_ascii=False),
            }
        )
    return items


def _anthropic_messages(turns: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The turns as Messages: a call a `tool_use` block, the results of one round one user
    message of `tool_result` blocks (the API wants them together)."""
    out: list[dict[str, Any]] = []
    for m in turns:
        if m["role"] == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": m["tool_call_id"],
                "content": m["content"],
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif m["role"] == "assistant":
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": m["content"]}] if m.get("content") else []
            )
            blocks += [
                {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in _calls(m)
            ]
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": "user", "content": m["content"]})
    return out


def _ollama_message(message: Mapping[str, Any]) -> dict[str, Any]:
    if message["role"] == "tool":
        return {"role": "tool", "content": message["content"], "tool_name": message.get("name", "")}
    out: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
    calls = _calls(message)
    if calls:
        out["tool_calls"] = [{"function": {"name": n, "arguments": a}} for _i, n, a in calls]
    return out


def _gemini_request(
    system: str, turns: list[Mapping[str, Any]], functions: list[Any], choice: Any, limit: Any
) -> dict[str, Any]:
    names = {i: n for m in turns for i, n, _a in _calls(m)}
    contents: list[dict[str, Any]] = []
    for m in turns:
        if m["role"] == "tool":
            name = m.get("name") or names.get(m["tool_call_id"], "")
            part = {"functionResponse": {"name": name, "response": {"result": m["content"]}}}
            if (
                contents
                and contents[-1]["role"] == "user"
                and "functionResponse" in contents[-1]["parts"][0]
            ):
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            continue
        parts: list[dict[str, Any]] = [{"text": m["content"]}] if m.get("content") else []
        parts += [{"functionCall": {"name": n, "args": a}} for _i, n, a in _calls(m)]
        contents.append({"role": "model" if m["role"] == "assistant" else "user", "parts": parts})
    body: dict[str, Any] = {
        "systemInstruction": {"parts": [{"text": system}]},
        "contents": contents,
        "tools": [{"functionDeclarations": functions}],
        "toolConfig": choice,
    }
    if limit:
        body["generationConfig"] = {"maxOutputTokens": limit}
    return body


def render(suite: Suite, provider: Provider, cell: Cell, wire: str, shape: Shape) -> str:
    """The event stream `provider` would send for `cell` on `wire`."""
    found = {r.name: r for r in recordings.discover(suite.cassettes, wire=wire)}
    missing = [name for name in shape.follows if name not in found]
    if missing:
        raise SynthesisError(f"{provider.key}@{wire}: follows unknown recordings {missing}")
    templates = _Templates(
        f"{provider.key}@{wire} {cell.scenario}",
        [e for name in shape.follows for e in wires.objects(wire, found[name].body())],
    )
    reply = suite.scenarios[cell.scenario].reply
    request = wire_request(wire, suite.request_body(provider, cell))
    renderer = _RENDERERS[wire]
    seed = f"{provider.key}|{wire}|{cell.scenario}"
    out = renderer(templates, shape, reply, request, cell.model, random.Random(seed))
    row = wires.wire(wire)
    return "".join(wires.frame(row, event) for event in out)


# -- the structure check ------------------------------------------------------------------------


#: Lists that are the wire's own structure (Gemini's candidates and parts): entered, each element
#: adding its paths under `key[]`. Other lists (tools, output items, logprobs) hold the reply's
#: or the request's data and are not entered.
_ENTERED_LISTS = ("candidates", "parts")
#: Objects that are the reply's data (a Gemini call's arguments): their keys are not the wire's.
_OPAQUE = ("args",)


def skeleton(event: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
    """An event's type and the paths of its keys, values masked."""
    paths: set[str] = set()

    def walk(value: Mapping[str, Any], prefix: str) -> None:
        for key, inner in value.items():
            paths.add(prefix + key)
            if isinstance(inner, Mapping) and key not in _OPAQUE:
                walk(inner, f"{prefix}{key}.")
            elif isinstance(inner, list) and key in _ENTERED_LISTS:
                for element in inner:
                    if isinstance(element, Mapping):
                        walk(element, f"{prefix}{key}[].")

    walk(event, "")
    kind = str(event.get("type"))
    for key in ("item", "content_block", "delta", "part"):
        inner = event.get(key)
        if isinstance(inner, Mapping) and "type" in inner:
            kind += f"/{inner['type']}"
    return kind, frozenset(paths)


def structure_problems(wire: str, rendered: bytes, followed: list[bytes]) -> list[str]:
    """Each rendered event whose skeleton no followed recording has, one line each."""
    known = {skeleton(e) for body in followed for e in wires.objects(wire, body)}
    problems = []
    for n, event in enumerate(wires.objects(wire, rendered)):
        kind, paths = skeleton(event)
        if (kind, paths) in known:
            continue
        closest = [p for k, p in known if k == kind]
        if not closest:
            problems.append(f"event {n}: {kind} is in no followed recording")
            continue
        best = min(closest, key=lambda p: len(p ^ paths))
        problems.append(
            f"event {n}: {kind} keys differ from the recordings: "
            f"extra {sorted(paths - best)}, missing {sorted(best - paths)}"
        )
    return problems


# -- rendering ----------------------------------------------------------------------------------


class _Templates:
    """The first recorded event of each type (and item/block type), copied on use."""

    def __init__(self, where: str, recorded: list[dict[str, Any]]):
        self.where = where
        self.by_kind: dict[str, dict[str, Any]] = {}
        for event in recorded:
            self.by_kind.setdefault(skeleton(event)[0], event)

        for event in recorded:
            for candidate in event.get("candidates") or []:
                for part in (candidate.get("content") or {}).get("parts") or []:
                    self.by_kind.setdefault("part/" + "+".join(sorted(part)), part)
                if candidate.get("finishReason"):
                    self.by_kind.setdefault("chunk/finish", event)

    def __call__(self, kind: str) -> dict[str, Any]:
        found = self.by_kind.get(kind)
        if found is None:
            raise Unshown(f"{self.where}: needs a {kind} event, which no followed recording shows")
        return copy.deepcopy(found)


class _Ids:
    def __init__(self, shape: Shape, rng: random.Random, where: str):
        self.shape, self.rng, self.where = shape, rng, where

    def __call__(self, name: str, **fields: Any) -> str:
        return generate(self.shape.ids[name], self.rng, fields, f"{self.where}: ids.{name}")


def _tokens(text: str) -> int:
    return len(cut(text, {"tokens": [1]}))


def _arguments_text(arguments: Any) -> str:
    return json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))


def _count(usage: Any, numbers: Mapping[str, int]) -> Any:
    """The recording's usage object with its counts replaced by this reply's (0 if unknown)."""
    if isinstance(usage, dict):
        return {
            k: numbers.get(k, 0) if isinstance(v, int) else _count(v, numbers)
            for k, v in usage.items()
        }
    if isinstance(usage, list):
        return [_count(v, numbers) for v in usage]
    return usage


def _usage_numbers(request: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, int]:
    prompt = math.ceil(len(json.dumps(request, ensure_ascii=False)) / 4)
    reasoning = _tokens(str(reply.get("reasoning") or ""))
    output = (
        reasoning
        + _tokens(str(reply.get("content") or ""))
        + sum(_tokens(_arguments_text(c["arguments"])) for c in reply.get("calls") or [])
    )
    return {
        "input_tokens": prompt,
        "output_tokens": output,
        "reasoning_tokens": reasoning,
        "total_tokens": prompt + output,
    }


def _responses(
    templates: _Templates,
    shape: Shape,
    reply: Mapping[str, Any],
    request: Mapping[str, Any],
    model: str,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """Responses: created, in_progress, one output item per piece of the reply, completed."""
    writer = _ResponsesWriter(templates, shape, rng)
    created_at = 1788134400 + rng.randrange(7 * 24 * 3600)
    envelope = templates("response.created")["response"]
    envelope.update(id=writer.ids("response"), created_at=created_at, model=model, output=[])
    for kind in ("response.created", "response.in_progress"):
        event = templates(kind)
        event["response"] = copy.deepcopy(envelope)
        writer.emit(event)
    if reply.get("reasoning"):
        writer.text_item(
            "reasoning", "reasoning_text", "response.reasoning_text.delta", str(reply["reasoning"])
        )
    if reply.get("content"):
        writer.text_item(
            "message", "output_text", "response.output_text.delta", str(reply["content"])
        )
    for n, call in enumerate(reply.get("calls") or []):
        writer.call_item(n, call)
    completed = templates("response.completed")
    response = completed["response"]
    response.update(id=envelope["id"], created_at=created_at, model=model, output=writer.items)
    if "completed_at" in response:
        response["completed_at"] = created_at + 1
    response["usage"] = _count(response.get("usage"), _usage_numbers(request, reply))
    writer.emit(completed)
    return writer.out


class _ResponsesWriter:
    """The events of one Responses stream as they are written: each numbered in turn, with a
    fresh `obfuscation` where its template has one, and the finished items for `completed`."""

    def __init__(self, templates: _Templates, shape: Shape, rng: random.Random) -> None:
        self.templates = templates
        self.shape = shape
        self.rng = rng
        self.ids = _Ids(shape, rng, templates.where)
        self.out: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> dict[str, Any]:
        event["sequence_number"] = len(self.out)
        if "obfuscation" in event:
            event["obfuscation"] = generate("{alnum:3}", self.rng, {}, self.templates.where)
        self.out.append(event)
        return event

    def text_item(self, item_type: str, part_type: str, delta_kind: str, text: str) -> None:
        """A message or reasoning item: added, its part, the text in pieces, then done."""
        templates, index = self.templates, len(self.items)
        item_id = self.ids("item", kind=_ITEM_PREFIX[item_type])
        added = templates(f"response.output_item.added/{item_type}")
        added["item"].update(id=item_id, content=[])
        added["output_index"] = index
        self.emit(added)
        part_added = templates(f"response.content_part.added/{part_type}")
        part_added.update(item_id=item_id, output_index=index)
        self.emit(part_added)
        for piece in cut(text, self.shape.fragment):
            delta = templates(delta_kind)
            delta.update(item_id=item_id, output_index=index, delta=piece)
            self.emit(delta)
        done = templates(delta_kind.replace(".delta", ".done"))
        done.update(item_id=item_id, output_index=index, text=text)
        self.emit(done)
        part_done = templates(f"response.content_part.done/{part_type}")
        part_done.update(item_id=item_id, output_index=index)
        part_done["part"]["text"] = text
        self.emit(part_done)
        item_done = templates(f"response.output_item.done/{item_type}")
        item_done["item"].update(id=item_id, content=[copy.deepcopy(part_done["part"])])
        item_done["output_index"] = index
        self.emit(item_done)
        self.items.append(item_done["item"])

    def call_item(self, n: int, call: Mapping[str, Any]) -> None:
        """A function call item: added, its arguments in pieces, then done."""
        templates, index = self.templates, len(self.items)
        item_id = self.ids("item", kind=_ITEM_PREFIX["function_call"])
        call_id = self.ids("call", index=n)
        arguments = _arguments_text(call["arguments"])
        added = templates("response.output_item.added/function_call")
        added["item"].update(id=item_id, call_id=call_id, name=call["name"], arguments="")
        added["output_index"] = index
        self.emit(added)
        for piece in cut(arguments, self.shape.fragment):
            delta = templates("response.function_call_arguments.delta")
            delta.update(item_id=item_id, output_index=index, delta=piece)
            self.emit(delta)
        done = templates("response.function_call_arguments.done")
        done.update(item_id=item_id, output_index=index, arguments=arguments)
        self.emit(done)
        item_done = templates("response.output_item.done/function_call")
        item_done["item"].update(
            id=item_id, call_id=call_id, name=call["name"], arguments=arguments
        )
        item_done["output_index"] = index
        self.emit(item_done)
        self.items.append(item_done["item"])


def _anthropic(
    templates: _Templates,
    shape: Shape,
    reply: Mapping[str, Any],
    request: Mapping[str, Any],
    model: str,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """Anthropic Messages: message_start, one content block per piece of the reply (a ping after
    the first block opens, as recorded), message_delta with the stop reason, message_stop."""
    ids = _Ids(shape, rng, templates.where)
    numbers = _usage_numbers(request, reply)
    out: list[dict[str, Any]] = []
    start = templates("message_start")
    message = start["message"]
    message.update(id=ids("message"), model=model)
    message["usage"] = _count(
        message.get("usage"), {"input_tokens": numbers["input_tokens"], "output_tokens": 1}
    )
    out.append(start)
    blocks = 0

    def open_block(kind: str, **fields: Any) -> int:
        nonlocal blocks
        event = templates(f"content_block_start/{kind}")
        event["index"] = blocks
        event["content_block"].update(fields)
        out.append(event)
        if blocks == 0:
            out.append(templates("ping"))
        blocks += 1
        return blocks - 1

    def close_block(index: int) -> None:
        event = templates("content_block_stop")
        event["index"] = index
        out.append(event)

    def deltas(index: int, kind: str, field: str, pieces: list[str]) -> None:
        for piece in pieces:
            event = templates(f"content_block_delta/{kind}")
            event["index"] = index
            event["delta"][field] = piece
            out.append(event)

    if reply.get("reasoning"):
        index = open_block("thinking", thinking="")
        deltas(index, "thinking_delta", "thinking", cut(str(reply["reasoning"]), shape.fragment))
        close_block(index)
    if reply.get("content"):
        index = open_block("text", text="")
        deltas(index, "text_delta", "text", cut(str(reply["content"]), shape.fragment))
        close_block(index)
    calls = reply.get("calls") or []
    for n, call in enumerate(calls):
        index = open_block("tool_use", id=ids("call", index=n), name=call["name"], input={})
        pieces = ["", *cut(_arguments_text(call["arguments"]), shape.fragment)]
        deltas(index, "input_json_delta", "partial_json", pieces)
        close_block(index)
    delta = templates("message_delta")
    delta["delta"]["stop_reason"] = "tool_use" if calls else "end_turn"
    delta["usage"] = _count(delta.get("usage"), numbers)
    out.append(delta)
    out.append(templates("message_stop"))
    return out


def _gemini(
    templates: _Templates,
    shape: Shape,
    reply: Mapping[str, Any],
    request: Mapping[str, Any],
    model: str,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """Gemini native: whole parts in the recorded finishing chunk (Gemini 2.5 sends all calls in
    one chunk with `finishReason: "STOP"`); the first call carries the thought signature."""
    ids = _Ids(shape, rng, templates.where)
    parts: list[dict[str, Any]] = []
    if reply.get("reasoning"):
        parts.append(templates("part/text+thought"))
        parts[-1]["text"] = str(reply["reasoning"])
    if reply.get("content"):
        parts.append(templates("part/text"))
        parts[-1]["text"] = str(reply["content"])
    for n, call in enumerate(reply.get("calls") or []):
        part = templates("part/functionCall+thoughtSignature" if n == 0 else "part/functionCall")
        part["functionCall"].update(name=call["name"], args=call["arguments"])
        if "id" in part["functionCall"]:
            part["functionCall"]["id"] = ids("call", index=n)
        if "thoughtSignature" in part:
            signature = ids("signature")
            part["thoughtSignature"] = signature
        parts.append(part)
    chunk = templates("chunk/finish")
    candidate = chunk["candidates"][0]
    candidate["content"]["parts"] = parts
    if not reply.get("calls") and "finishMessage" in candidate:
        del candidate["finishMessage"]
    numbers = _usage_numbers(request, reply)
    chunk["usageMetadata"] = _count(
        chunk.get("usageMetadata"),
        {
            "promptTokenCount": numbers["input_tokens"],
            "tokenCount": numbers["input_tokens"],
            "candidatesTokenCount": numbers["output_tokens"] - numbers["reasoning_tokens"],
            "thoughtsTokenCount": numbers["reasoning_tokens"],
            "totalTokenCount": numbers["total_tokens"],
        },
    )
    chunk.update(modelVersion=model, responseId=ids("response"))
    return [chunk]


_RENDERERS = {"responses": _responses, "anthropic": _anthropic, "gemini": _gemini}
#: The wires this module renders: those the wire table says how to write (`wires.Synthesis`).
RENDERED_WIRES = tuple(name for name, row in wires.WIRES.items() if row.synthesis is not None)
