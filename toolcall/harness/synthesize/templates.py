"""Chat completions synthesized from templates: a scenario's `reply` in one provider's own shape.

Most cells cannot be recorded (no keys, no budget, eight providers), yet the assembler has to be
proved against each provider's stream as it really is: its envelope fields and their order, its id
formats, how it cuts arguments, where it puts `finish_reason` and usage. So the shape is written
down as DATA in the provider's `synthesis` block of `providers.yaml`, next to the evidence it rests
on, and this module only interprets it. There is no `if provider == ...` here: a new provider, or
a provider that changes its wire, is an edit to `providers.yaml`, reviewable against the raw
recordings, and the fingerprint test (`fingerprint.observe`) checks that what the data renders is
what the profile's `quirks` declare.

Output is deterministic (same input, byte-identical files): everything that looks random (ids,
obfuscation padding, timestamps) comes from generators seeded with provider + scenario + name.

The `synthesis` block
=====================

Every key is optional unless marked; `scenarios.<scenario>` holds overrides that are deep-merged
over the block for that one scenario (mappings merge, anything else replaces)::

    content_type: text/event-stream; charset=utf-8   # response Content-Type header
    created: 1788134400          # base unix time; a seeded offset (< 7 days) is added per stream
    clock_utc_offset_hours: 8    # clock of `{created:...}` in formats (GLM ids are Beijing time)
    response_model: {gpt-4o: gpt-4o-2024-08-06}  # request model -> model echoed in chunks
    values:                      # generated strings, usable as $name in every template
      chunk_id: {format: "chatcmpl-{alnum:29}", per: stream}   # per: provider | stream | chunk
    call_id: {format: "call_{index:02}_{alnum:24}"}   # or {list: [id0, id1, ...]}
    arguments:
      json_separators: [", ", ": "]  # how the reply's parsed arguments are written as text
      mode: incremental              # whole: one delta per call | incremental: head + fragments
      fragment: {tokens: [2, 1, 3]}  # fragment sizes, cycled: in tokens (see below) or {chars: }
      calls_per_chunk: one           # whole mode: one call per chunk | all calls in one chunk
      trailing_empty_delta: none     # none | last | each: an all-empty delta closes the call(s)
    text: {fragment: {tokens: [1]}}  # how reasoning and content are cut into deltas
    finish:
      reason_with_calls: tool_calls  # finish_reason of a turn with calls (Gemini 3 says stop)
      reason_without_calls: stop
      with_last_tool_chunk: false    # finish_reason (and the finish templates) on the chunk
                                     # carrying the last tool delta, instead of a chunk of its own
    usage:                           # required if a template uses $usage
      template: '{"prompt_tokens":$prompt_tokens,"completion_tokens":$output_tokens,...}'
      derived: {cost_in_usd_ticks: {prompt_tokens: 2000, output_tokens: 5000}}  # linear sums
    keep_alive: {count: 3, line: ": keep-alive"}   # SSE comment lines before the first chunk
    done: true                                     # end with `data: [DONE]`
    templates: ...                                 # required, see below
    scenarios: {reasoning_then_call: {...overrides...}}

Templates are JSON texts with `string.Template` placeholders (`$name`). Each placeholder stands
for a whole JSON value; the code encodes what it substitutes (strings quoted and escaped, numbers
as numbers, rendered sub-templates inserted as they are), so a template is exactly the wire with
holes in it, keys in the provider's order, and can be compared line by line with a recording::

    templates:
      chunk: '{"id":$chunk_id,...,"choices":[$choice]}'   # required: the envelope
      choice: '{"index":0,"delta":$delta,"finish_reason":null}'   # required
      opening:                 # optional delta sent before the first piece of the reply,
        tool: {delta: '{"role":"assistant","content":null}'}  # keyed by what comes first:
        content: {chunk: '...', delta: '...'}                  # reasoning | content | tool
      reasoning: {delta: '{"reasoning_content":$text}', first: '...'}
      content: {delta: '{"content":$text}', first: '...'}
      content_end: {delta: '{"content":""}'}   # after the last content piece of a text turn
      tool: {delta: '{"tool_calls":$tool_calls}', first: '...'}
      tool_call:               # one element of $tool_calls
        head: '{"index":$index,"id":$id,"type":"function","function":{"name":$name,"arguments":""}}'
        fragment: '{"index":$index,"function":{"arguments":$arguments}}'
        whole: '{"id":$id,"function":{"name":$name,"arguments":$arguments},"index":$index,...}'
      trailing: {choice: '...', delta: '{"tool_calls":$tool_calls}', tool_call: '...'}
      finish: {chunk: '...', choice: '...', delta: '{}'}
      usage_chunk: {chunk: '{...,"choices":[],"usage":$usage}'}   # emitted after finish if set

Every kind (`opening.*`, `reasoning`, `content`, `content_end`, `tool`, `trailing`, `finish`) may
give its own `chunk` and `choice`, falling back to the top-level ones; `first` is the delta used
when the kind's chunk is the first of the stream (Grok and Qwen put `role` only there). A merged
finish (`with_last_tool_chunk`) renders the last tool delta inside the finish `choice` and `chunk`.

Placeholders: in every template `$created`, `$model`, `$finish_reason` (null except on the finish
chunk), `$usage` (when `usage` is set) and every name under `values`; `$choice` in a chunk,
`$delta` in a choice, `$text` in reasoning/content deltas, `$tool_calls` in tool deltas; `$index`,
`$id`, `$name` and `$arguments` in tool-call templates. Usage templates get `$prompt_tokens`,
`$completion_tokens` (visible output), `$reasoning_tokens`, `$output_tokens` (both),
`$total_tokens` (prompt + output), `$cached_tokens`, `$uncached_tokens` and the `derived` names;
the counts are rough estimates.
Every rendered piece must be JSON, and a placeholder with no value is an error naming the template,
so a typo in `providers.yaml` fails loudly instead of producing a subtly different wire.

Formats (`values`, `call_id`) are literal text with fields: `{hex:N}`, `{alnum:N}`,
`{lower_alnum:N}`, `{digits:N}` (no leading zero), `{alnum:A-B}` (random length), `{uuid}`,
`{created:STRFTIME}`, `{created_ms}`, and for call ids `{index}` / `{index:02}` and `{name}`.

Tokens, for fragment sizes, are cut by a GPT-2-style pattern (words with their leading space,
digit runs, punctuation runs, whitespace), which reproduces the pieces the recordings show
(`{"`, `a`, `":`, ` `, `2` for Kimi) closely enough; a size list such as `[2, 1, 3]` is cycled.
"""

from __future__ import annotations

import json
import math
import random
import re
import string
import uuid
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..suite.profiles import Cell, Provider, Suite

#: GPT-2-style pre-tokenizer: a word with its leading space, digits, punctuation runs, spaces.
_TOKEN = re.compile(r" ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+|.", re.DOTALL)
_FIELD = re.compile(r"\{([^{}:]*)(?::([^{}]*))?\}")
_ALPHABETS = {
    "hex": "0123456789abcdef",
    "alnum": string.ascii_letters + string.digits,
    "lower_alnum": string.ascii_lowercase + string.digits,
    "digits": string.digits,
}
_MAX_CREATED_OFFSET = 7 * 24 * 3600
SYNTHESIZED = "synthesized"

_template: dict[str, Any] = {"type": "string", "minLength": 2}
_kind_properties: dict[str, Any] = {k: _template for k in ("chunk", "choice", "delta", "first")}
_kind: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": _kind_properties,
}
_value: dict[str, Any] = {
    "type": "object",
    "required": ["format"],
    "additionalProperties": False,
    "properties": {
        "format": {"type": "string", "minLength": 1},
        "per": {"enum": ["provider", "stream", "chunk"]},
    },
}
_call_id: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "format": {"type": "string", "minLength": 1},
        "list": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
    },
    "oneOf": [{"required": ["format"]}, {"required": ["list"]}],
}
_fragment: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "maxProperties": 1,
    "properties": {
        name: {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1}}
        for name in ("tokens", "chars")
    },
}

#: JSON Schema of a synthesis block after the scenario's overrides are merged in.
SYNTHESIS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["content_type", "templates"],
    "additionalProperties": False,
    "properties": {
        "content_type": {"type": "string", "minLength": 1},
        "created": {"type": "integer", "minimum": 0},
        "clock_utc_offset_hours": {"type": "number", "minimum": -12, "maximum": 14},
        "response_model": {"type": "object", "additionalProperties": {"type": "string"}},
        "values": {
            "type": "object",
            "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
            "additionalProperties": _value,
        },
        "call_id": _call_id,
        "arguments": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "json_separators": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, {"type": "string"}],
                    "minItems": 2,
                    "maxItems": 2,
                },
                "mode": {"enum": ["whole", "incremental"]},
                "fragment": _fragment,
                "calls_per_chunk": {"enum": ["one", "all"]},
                "trailing_empty_delta": {"enum": ["none", "last", "each"]},
            },
        },
        "text": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"fragment": _fragment},
        },
        "finish": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "reason_with_calls": {"type": "string", "minLength": 1},
                "reason_without_calls": {"type": "string", "minLength": 1},
                "with_last_tool_chunk": {"type": "boolean"},
            },
        },
        "usage": {
            "type": "object",
            "required": ["template"],
            "additionalProperties": False,
            "properties": {
                "template": _template,
                "derived": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": {"type": "number"},
                    },
                },
            },
        },
        "keep_alive": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "count": {"type": "integer", "minimum": 0},
                "line": {"type": "string", "pattern": "^:"},
            },
        },
        "done": {"type": "boolean"},
        "templates": {
            "type": "object",
            "required": ["chunk", "choice"],
            "additionalProperties": False,
            "properties": {
                "chunk": _template,
                "choice": _template,
                "opening": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {k: _kind for k in ("reasoning", "content", "tool")},
                },
                "reasoning": _kind,
                "content": _kind,
                "content_end": _kind,
                "tool": _kind,
                "tool_call": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {k: _template for k in ("head", "fragment", "whole")},
                },
                "trailing": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["delta", "tool_call"],
                    "properties": {**_kind_properties, "tool_call": _template},
                },
                "finish": _kind,
                "usage_chunk": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["chunk"],
                    "properties": {"chunk": _template},
                },
            },
        },
    },
}
_VALIDATOR = Draft202012Validator(SYNTHESIS_SCHEMA)


class SynthesisError(Exception):
    """A synthesis block cannot render a cell; the message names the provider, scenario and key."""


class _Json(str):
    """Text that is already JSON (a rendered sub-template): substituted as it is."""


class _Encoded(Mapping[str, str]):
    """Placeholder values, JSON-encoded on first use (most templates use a few of many values)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> str:
        value = self._values[key]
        if isinstance(value, _Json):
            return str(value)
        return json.dumps(value, ensure_ascii=False)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def settings(provider: Provider, scenario: str) -> dict[str, Any]:
    """The provider's synthesis block with the scenario's overrides merged in, checked."""
    block = dict(provider.synthesis)
    overrides = block.pop("scenarios", {}) or {}
    if not isinstance(overrides, dict):
        raise SynthesisError(f"providers.{provider.key}.synthesis.scenarios must be a mapping")
    merged = _merge(block, overrides.get(scenario) or {})
    error = best_match(_VALIDATOR.iter_errors(merged))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SynthesisError(
            f"providers.{provider.key}.synthesis (for {scenario}): {where}: {error.message}"
        )
    return merged


def render_reply(suite: Suite, provider: Provider, cell: Cell, reply: Mapping[str, Any]) -> str:
    """The SSE body `provider` would send for `reply` (reasoning, content, calls) under `cell`'s
    synthesis settings: a scenario's own reply, or a recording's reply rendered through our
    templates, so the two streams can be compared for structure."""
    spec = settings(provider, cell.scenario)
    return _Renderer(provider, cell, spec, reply, suite.request_body(provider, cell)).body()


def content_type(provider: Provider, scenario: str) -> str:
    """The response's Content-Type the provider's synthesis block names for `scenario`."""
    return str(settings(provider, scenario)["content_type"])


# -- rendering -------------------------------------------------------------------------------


class _Renderer:
    """Renders one cell. Holds the stream-level state: the chunk count and seeded generators."""

    def __init__(
        self,
        provider: Provider,
        cell: Cell,
        spec: dict[str, Any],
        reply: Mapping[str, Any],
        request: Mapping[str, Any],
    ):
        self.provider = provider
        self.cell = cell
        self.spec = spec
        self.where = f"providers.{provider.key}.synthesis (for {cell.scenario})"
        self.templates: dict[str, Any] = spec["templates"]
        self.reply: Mapping[str, Any] = reply
        self.out: list[str] = []
        self.chunks = 0
        seed = f"{provider.key}|{cell.scenario}"
        offset = random.Random(f"{seed}|created").randrange(_MAX_CREATED_OFFSET)
        self.created = int(spec.get("created", 1788134400)) + offset
        tz = timezone(timedelta(hours=spec.get("clock_utc_offset_hours", 0)))
        self.fields: dict[str, Any] = {
            "created": datetime.fromtimestamp(self.created, tz),
            "created_ms": self.created * 1000 + random.Random(f"{seed}|ms").randrange(1000),
        }
        self.per_chunk: dict[str, tuple[str, random.Random]] = {}
        self.common: dict[str, Any] = {
            "created": self.created,
            "model": spec.get("response_model", {}).get(cell.model, cell.model),
            "finish_reason": None,
        }
        for name, rule in spec.get("values", {}).items():
            per = rule.get("per", "stream")
            rng = random.Random(f"{provider.key}|{name}" if per == "provider" else f"{seed}|{name}")
            if per == "chunk":
                self.per_chunk[name] = (str(rule["format"]), rng)
            else:
                self.common[name] = self._generate(str(rule["format"]), rng, name, self.fields)
        self.arguments = self._arguments_texts()
        self.call_ids = self._call_ids(seed)
        if "usage" in spec:
            self.common["usage"] = _Json(self._usage(request))

    # -- the stream, top to bottom -----------------------------------------------------------

    def body(self) -> str:
        spec = self.spec
        keep_alive = spec.get("keep_alive", {})
        for _ in range(keep_alive.get("count", 0)):
            self.out.append(keep_alive.get("line", ": keep-alive") + "\n\n")
        reasoning = str(self.reply.get("reasoning") or "")
        content = str(self.reply.get("content") or "")
        calls: list[dict[str, Any]] = list(self.reply.get("calls") or [])
        first = "reasoning" if reasoning else "content" if content else "tool" if calls else None
        opening = self.templates.get("opening", {}).get(first) if first else None
        if opening is not None:
            where = f"templates.opening.{first}"
            delta = self._fill(opening.get("delta", "{}"), f"{where}.delta", {})
            self._emit(opening, delta, {}, f"opening.{first}")
        for piece in self._cut(reasoning, spec.get("text", {})):
            self._emit_kind("reasoning", {"text": piece})
        for piece in self._cut(content, spec.get("text", {})):
            self._emit_kind("content", {"text": piece})
        if content and not calls and "content_end" in self.templates:
            self._emit_kind("content_end", {})
        finish = spec.get("finish", {})
        tool_deltas = self._tool_deltas(calls)
        merge = bool(finish.get("with_last_tool_chunk")) and bool(tool_deltas)
        for number, (kind, tool_calls) in enumerate(tool_deltas):
            last = number == len(tool_deltas) - 1
            values = {"tool_calls": _Json("[" + ",".join(tool_calls) + "]")}
            if last and merge:
                delta = self._delta(kind, values)
                self._finish(delta, calls)
            else:
                self._emit_kind(kind, values)
        if not merge:
            delta = self._fill(
                self._kind("finish").get("delta", "{}"), "templates.finish.delta", {}
            )
            self._finish(delta, calls)
        usage_chunk = self.templates.get("usage_chunk")
        if usage_chunk is not None:
            self._emit_chunk(usage_chunk["chunk"], "templates.usage_chunk.chunk", {})
        if spec.get("done", True):
            self.out.append("data: [DONE]\n\n")
        return "".join(self.out)

    def _finish(self, delta: str, calls: list[dict[str, Any]]) -> None:
        finish = self.spec.get("finish", {})
        reason = (
            finish.get("reason_with_calls", "tool_calls")
            if calls
            else finish.get("reason_without_calls", "stop")
        )
        self._emit(self._kind("finish"), delta, {"finish_reason": reason}, "finish")

    def _tool_deltas(self, calls: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
        """(kind, tool-call JSON texts) of every chunk that carries tool data, in order."""
        arguments = self.spec.get("arguments", {})
        mode = arguments.get("mode", "incremental")
        trailing = arguments.get("trailing_empty_delta", "none")
        out: list[tuple[str, list[str]]] = []
        whole_chunk: list[str] = []
        for index, call in enumerate(calls):
            values = {"index": index, "id": self.call_ids[index], "name": call["name"]}
            text = self.arguments[index]
            if mode == "whole":
                rendered = self._tool_call("whole", {**values, "arguments": text})
                if arguments.get("calls_per_chunk", "one") == "all":
                    whole_chunk.append(rendered)
                else:
                    out.append(("tool", [rendered]))
            else:
                out.append(("tool", [self._tool_call("head", {**values, "arguments": ""})]))
                for piece in self._cut(text, arguments):
                    out.append(
                        ("tool", [self._tool_call("fragment", {**values, "arguments": piece})])
                    )
            if trailing == "each" or (trailing == "last" and index == len(calls) - 1):
                template = self.templates.get("trailing", {}).get("tool_call")
                if template is None:
                    raise SynthesisError(
                        f"{self.where}: trailing_empty_delta needs templates.trailing"
                    )
                out.append(
                    ("trailing", [self._fill(template, "templates.trailing.tool_call", values)])
                )
        if whole_chunk:
            out.insert(0, ("tool", whole_chunk))
        return out

    def _tool_call(self, shape: str, values: dict[str, Any]) -> str:
        template = self.templates.get("tool_call", {}).get(shape)
        if template is None:
            mode = self.spec.get("arguments", {}).get("mode", "incremental")
            raise SynthesisError(
                f"{self.where}: arguments.mode {mode} needs templates.tool_call.{shape}"
            )
        return self._fill(template, f"templates.tool_call.{shape}", values)

    # -- chunks --------------------------------------------------------------------------------

    def _kind(self, kind: str) -> dict[str, Any]:
        spec = self.templates.get(kind)
        if spec is None:
            if kind == "finish":
                return {}
            raise SynthesisError(f"{self.where}: the reply needs templates.{kind}")
        return dict(spec)

    def _delta(self, kind: str, values: dict[str, Any]) -> str:
        spec = self._kind(kind)
        if self.chunks == 0 and "first" in spec:
            return self._fill(spec["first"], f"templates.{kind}.first", values)
        if "delta" not in spec:
            raise SynthesisError(f"{self.where}: templates.{kind} needs a delta")
        return self._fill(spec["delta"], f"templates.{kind}.delta", values)

    def _emit_kind(self, kind: str, values: dict[str, Any]) -> None:
        self._emit(self._kind(kind), self._delta(kind, values), {}, kind)

    def _emit(
        self,
        spec: Mapping[str, Any],
        delta: str,
        values: Mapping[str, Any] | None = None,
        kind: str = "opening",
    ) -> None:
        values = {**(values or {}), "delta": _Json(delta)}
        choice_at = f"templates.{kind}.choice" if "choice" in spec else "templates.choice"
        chunk_at = f"templates.{kind}.chunk" if "chunk" in spec else "templates.chunk"
        choice = self._fill(spec.get("choice", self.templates["choice"]), choice_at, values)
        chunk = spec.get("chunk", self.templates["chunk"])
        self._emit_chunk(chunk, chunk_at, {**values, "choice": _Json(choice)})

    def _emit_chunk(self, template: str, where: str, values: Mapping[str, Any]) -> None:
        per_chunk = {
            name: self._generate(rule, rng, name, self.fields)
            for name, (rule, rng) in self.per_chunk.items()
        }
        text = self._fill(template, where, {**per_chunk, **values})
        self.out.append(f"data: {text}\n\n")
        self.chunks += 1

    def _fill(self, template: str, where: str, values: Mapping[str, Any]) -> str:
        """Substitute `values` into a template and check that the result is JSON.

        Checking every piece (not only the whole chunk) makes a broken template report its own
        name rather than the name of the envelope it was pasted into.
        """
        try:
            text = string.Template(template).substitute(_Encoded({**self.common, **values}))
        except KeyError as exc:
            raise SynthesisError(
                f"{self.where}: {where}: no value for ${exc.args[0]} here"
            ) from None
        except ValueError as exc:
            raise SynthesisError(f"{self.where}: {where}: {exc}") from None
        try:
            json.loads(text)
        except ValueError as exc:
            raise SynthesisError(f"{self.where}: {where} renders bad JSON: {exc}") from None
        return text

    # -- reply pieces ---------------------------------------------------------------------------

    def _arguments_texts(self) -> list[str]:
        separators = self.spec.get("arguments", {}).get("json_separators", [", ", ": "])
        return [
            json.dumps(call["arguments"], ensure_ascii=False, separators=tuple(separators))
            for call in self.reply.get("calls") or []
        ]

    def _call_ids(self, seed: str) -> list[str]:
        calls = self.reply.get("calls") or []
        rule = self.spec.get("call_id", {"format": "call_{alnum:24}"})
        if "list" in rule:
            if len(rule["list"]) < len(calls):
                raise SynthesisError(f"{self.where}: call_id.list has fewer ids than calls")
            return [str(i) for i in rule["list"][: len(calls)]]
        rng = random.Random(f"{seed}|call_id")
        fields = self.fields
        return [
            self._generate(
                rule["format"], rng, "call_id", {**fields, "index": i, "name": c["name"]}
            )
            for i, c in enumerate(calls)
        ]

    def _cut(self, text: str, spec: Mapping[str, Any]) -> list[str]:
        return cut(text, spec.get("fragment"))

    def _usage(self, request: Mapping[str, Any]) -> str:
        usage = self.spec["usage"]
        prompt = math.ceil(len(json.dumps(request, ensure_ascii=False)) / 4)
        completion = _tokens(str(self.reply.get("content") or "")) + sum(
            _tokens(text) + _tokens(call["name"])
            for text, call in zip(self.arguments, self.reply.get("calls") or [], strict=True)
        )
        reasoning = _tokens(str(self.reply.get("reasoning") or ""))
        numbers: dict[str, int] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "reasoning_tokens": reasoning,
            "output_tokens": completion + reasoning,
            "total_tokens": prompt + completion + reasoning,
            "cached_tokens": 0,
            "uncached_tokens": prompt,
        }
        for name, terms in usage.get("derived", {}).items():
            try:
                numbers[name] = int(sum(coef * numbers[var] for var, coef in terms.items()))
            except KeyError as exc:
                raise SynthesisError(f"{self.where}: usage.derived.{name}: no {exc}") from None
        return self._fill(usage["template"], "usage.template", numbers)

    # -- generated values ------------------------------------------------------------------------

    def _generate(self, rule: str, rng: random.Random, name: str, fields: Mapping[str, Any]) -> str:
        return generate(rule, rng, fields, f"{self.where}: {name}")


def generate(rule: str, rng: random.Random, fields: Mapping[str, Any], where: str) -> str:
    """Expand a format's fields (`{hex:24}`, `{index:02}`, ...) with the given generator."""

    def field(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2)
        if kind in _ALPHABETS:
            low, _, high = (arg or "").partition("-")
            if not low.isdigit() or (high and not high.isdigit()):
                raise SynthesisError(f"{where}: {{{kind}}} needs a length")
            size = rng.randint(int(low), int(high)) if high else int(low)
            chars = [rng.choice(_ALPHABETS[kind]) for _ in range(size)]
            if kind == "digits" and chars:
                chars[0] = rng.choice("123456789")
            return "".join(chars)
        if kind == "uuid":
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if kind in fields:
            return format(fields[kind], arg or "")
        raise SynthesisError(f"{where}: unknown field {{{kind}}} in {rule!r}")

    return _FIELD.sub(field, rule)


def cut(text: str, fragment: Mapping[str, Any] | None) -> list[str]:
    """`text` in fragments of the configured sizes (cycled); one piece if none are given."""
    if not text:
        return []
    if not fragment:
        return [text]
    unit, sizes = next(iter(fragment.items()))
    units = _TOKEN.findall(text) if unit == "tokens" else list(text)
    pieces = []
    at = 0
    turn = 0
    while at < len(units):
        size = int(sizes[turn % len(sizes)])
        pieces.append("".join(units[at : at + size]))
        at += size
        turn += 1
    return pieces


def _tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
