"""Two captures of one turn side by side: which layer changed what.

Upstream of a gateway and downstream of it, or a provider's Anthropic endpoint and the chat
endpoint a relay made of it: the two may be on different wires and framings, so they are compared
as the library assembled them (calls, ids, names, arguments, finish, usage, text), and by what
each body shows of its own framing and events. Each difference is one change with its layer, so
a reader sees at once whether the gateway lost a call or only renamed the finish.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The finish reasons of the five wires, by what they mean.
_FINISH_KIND = {
    "tool_calls": "calls",
    "tool_use": "calls",
    "function_call": "calls",
    "stop": "stop",
    "end_turn": "stop",
    "STOP": "stop",
    "completed": "stop",
    "length": "cut",
    "max_tokens": "cut",
    "MAX_TOKENS": "cut",
}


def changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every difference between two doctor documents of one turn, layer by layer."""
    found: list[dict[str, Any]] = []

    def change(layer: str, what: str, left: object, right: object) -> None:
        found.append({"layer": layer, "what": what, "a": left, "b": right})

    for layer in ("wire", "framing", "model"):
        if a[layer]["value"] != b[layer]["value"]:
            change(layer, f"the {layer} differs", a[layer]["value"], b[layer]["value"])
    if a["capture"]["events"] != b["capture"]["events"]:
        change("events", "the number of events", a["capture"]["events"], b["capture"]["events"])
    _calls(a["calls"], b["calls"], change)
    _turn(a["turn"], b["turn"], change)
    if a["sound"] != b["sound"]:
        change("findings", "the turn is sound", a["sound"], b["sound"])
    codes_a = {f["code"] for f in a["findings"]}
    codes_b = {f["code"] for f in b["findings"]}
    if codes_a != codes_b:
        change(
            "findings",
            "findings only one side has",
            sorted(codes_a - codes_b),
            sorted(codes_b - codes_a),
        )
    return found


def _calls(a: list[dict[str, Any]], b: list[dict[str, Any]], change: Any) -> None:
    if len(a) != len(b):
        change("calls", "the number of calls", len(a), len(b))
    for left, right in zip(a, b, strict=False):
        n = left["index"]
        if left["id"] != right["id"]:
            change("ids", f"call {n}'s id", left["id"], right["id"])
        if left["name"] != right["name"]:
            change("names", f"call {n}'s name", left["name"], right["name"])
        if left["arguments"] != right["arguments"]:
            change(
                "arguments",
                f"call {n}'s arguments",
                left["arguments_text"],
                right["arguments_text"],
            )


def _turn(a: dict[str, Any] | None, b: dict[str, Any] | None, change: Any) -> None:
    if a is None or b is None:
        if (a is None) != (b is None):
            said = {True: "finished", False: "never finished (the stream broke)"}
            change("finish", "the turn", said[a is not None], said[b is not None])
        return
    fa, fb = a["finish_reason"], b["finish_reason"]
    if fa != fb:
        same = _FINISH_KIND.get(str(fa)) == _FINISH_KIND.get(str(fb)) and fa is not None
        what = "the finish reason's word (the same meaning)" if same else "the finish reason"
        change("finish", what, fa, fb)
    if (a["usage"] is None) != (b["usage"] is None):
        change("usage", "usage on one side only", a["usage"], b["usage"])
    elif a["usage"] != b["usage"]:
        change("usage", "the usage", a["usage"], b["usage"])
    for key in ("content", "reasoning"):
        if a[f"{key}_chars"] != b[f"{key}_chars"]:
            change("text", f"the {key}'s length", a[f"{key}_chars"], b[f"{key}_chars"])


def text(a: Mapping[str, Any], b: Mapping[str, Any], found: list[dict[str, Any]]) -> str:
    """The comparison for a terminal."""
    head = f"A {a['source']} ({a['wire']['value']}, {a['framing']['value']})\n"
    head += f"B {b['source']} ({b['wire']['value']}, {b['framing']['value']})\n"
    if not found:
        return head + "the same turn: no layer changed anything\n"
    lines = [f"{c['layer']:9} {c['what']}: A {c['a']!r} -> B {c['b']!r}" for c in found]
    return head + "\n".join(lines) + "\n"


def markdown(a: Mapping[str, Any], b: Mapping[str, Any], found: list[dict[str, Any]]) -> str:
    lines = [
        "### One turn, two captures: what changed between them",
        "",
        f"- A: `{a['source']}` ({a['wire']['value']}, {a['framing']['value']})",
        f"- B: `{b['source']}` ({b['wire']['value']}, {b['framing']['value']})",
        "",
        "| layer | what | A | B |",
        "|---|---|---|---|",
    ]
    lines += [f"| {c['layer']} | {c['what']} | `{c['a']!r}` | `{c['b']!r}` |" for c in found]
    if not found:
        lines.append("| - | nothing changed | | |")
    return "\n".join(lines) + "\n"
