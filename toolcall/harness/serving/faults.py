"""The stream faults `toolcall serve` can answer with: one row of DATA per fault seen in public
bug reports of servers and gateways, so `toolcall probe` (and any client) can be proved against
each with no network.

A request asks for one per request: `X-Toolcall-Fault: NAME`, a `fault` query parameter, the
path's `/fault/NAME` (chat completions), or a model named `fault:NAME`, which reaches the server
through any client and gateway that forwards the model. The answer is the request's plain answer
(`plain.plan`, written by `render`) transformed on the request's wire; `plain` is the mode with
no fault. A row names the wires its fault can exist on, each with its transform, and says for
every other wire why the fault cannot exist there. Asked unstreamed (`stream: false`), a mode
answers the plain answer, except the one fault that is a disagreement between the two answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..reading.wires import NAMES
from ..suite.cassettes import CHAT
from . import render
from .plain import Plan, cut, halfway
from .render import Event

#: Every wire, chat completions first (the harness's wire table).
WIRE_NAMES = NAMES
#: A transform: the plain plan of a request on a wire in, the events of the faulty stream out.
Transform = Callable[[str, Plan], list[Event]]


@dataclass(frozen=True)
class Fault:
    """One fault: its name, the public reports it reproduces, what it does, its transform on
    each wire it can exist on, and why it cannot on the others."""

    name: str
    reports: tuple[str, ...]
    what: str
    transforms: Mapping[str, Transform]
    cannot: Mapping[str, str] = field(default_factory=dict)
    #: The unstreamed answer's plan, for a fault where the two answers disagree.
    unstreamed: Callable[[Plan], Plan] | None = None

    def stream(self, wire: str, plan: Plan) -> list[Event]:
        return self.transforms[wire](wire, plan)

    def answer(self, wire: str, plan: Plan) -> Event:
        return render.answer(wire, self.unstreamed(plan) if self.unstreamed else plan)


def _replanned(edit: Callable[[Plan], Plan]) -> Transform:
    """A fault of the turn itself: the edited plan written as the wire writes it."""
    return lambda wire, plan: render.events(wire, edit(plan))


def _rewritten(edit: Callable[[str, Plan, list[Event]], list[Event]]) -> Transform:
    """A fault of how the wire carries the turn: the plain events rewritten."""
    return lambda wire, plan: edit(wire, plan, render.events(wire, plan))


def _on(wires: tuple[str, ...], transform: Transform) -> dict[str, Transform]:
    return dict.fromkeys(wires, transform)


# --- the pieces of argument text each wire streams ---------------------------------------------


def _fragment(wire: str, event: Event) -> tuple[Any, str] | None:
    """The call an arguments fragment belongs to and its text, or None for another event."""
    if wire == CHAT:
        choices = event.get("choices") or [{}]
        calls = choices[0].get("delta", {}).get("tool_calls") or []
        if calls and "id" not in calls[0] and "arguments" in calls[0].get("function", {}):
            return calls[0]["index"], calls[0]["function"]["arguments"]
    elif wire == "responses" and event["type"] == "response.function_call_arguments.delta":
        return event["item_id"], event["delta"]
    elif wire == "anthropic" and event.get("delta", {}).get("type") == "input_json_delta":
        return event["index"], event["delta"]["partial_json"]
    return None


def _with_text(wire: str, event: Event, text: str) -> Event:
    """`event`, a fragment, carrying `text` instead."""
    copy: Event = json.loads(json.dumps(event))
    if wire == CHAT:
        copy["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = text
    elif wire == "responses":
        copy["delta"] = text
    else:
        copy["delta"]["partial_json"] = text
    return copy


def _fragments(wire: str, written: list[Event]) -> Iterator[tuple[int, Any, str]]:
    for at, event in enumerate(written):
        found = _fragment(wire, event)
        if found is not None:
            yield at, found[0], found[1]


def _buffered(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
    """Each call's arguments in one fragment, where its last one was (vllm#42878)."""
    whole: dict[Any, str] = {}
    last: dict[Any, int] = {}
    for at, key, text in _fragments(wire, written):
        whole[key] = whole.get(key, "") + text
        last[key] = at
    kept = {at: key for key, at in last.items()}
    out = []
    for at, event in enumerate(written):
        found = _fragment(wire, event)
        if found is None:
            out.append(event)
        elif at in kept:
            out.append(_with_text(wire, event, whole[kept[at]]))
    return out


def _resent_whole(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
    """After each call's last fragment, one more with all its arguments, re-serialised compact
    as the report's consolidated copy is (`{"command": "..."}{"command":"..."}`, eliza#16973)."""
    whole: dict[Any, str] = {}
    last: dict[Any, int] = {}
    for at, key, text in _fragments(wire, written):
        whole[key] = whole.get(key, "") + text
        last[key] = at
    out = []
    for at, event in enumerate(written):
        out.append(event)
        key = next((k for k, there in last.items() if there == at), None)
        if key is not None:
            out.append(_with_text(wire, event, _compact(whole[key])))
    return out


def _compact(arguments: str) -> str:
    """`arguments` re-serialised without spaces, as a relay that parsed them sends them."""
    try:
        return json.dumps(json.loads(arguments), separators=(",", ":"))
    except ValueError:
        return arguments


def _cumulative(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
    """Every fragment carries the call's arguments so far (hermes-agent#35718)."""
    so_far: dict[Any, str] = {}
    out = list(written)
    for at, key, text in _fragments(wire, written):
        so_far[key] = so_far.get(key, "") + text
        out[at] = _with_text(wire, written[at], so_far[key])
    return out


def _opening_dropped(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
    """Each call's arguments lose their opening `{"`, so the first delta that arrives starts
    inside the key (`'code'`, `'":'`, `' "'`, ... in vllm#34887); a fragment that held only the
    `{"` is not sent at all."""
    seen: set[Any] = set()
    out: list[Event | None] = list(written)
    for at, key, text in _fragments(wire, written):
        if key not in seen:
            seen.add(key)
            rest = text.removeprefix('{"')
            out[at] = _with_text(wire, written[at], rest) if rest else None
    return [event for event in out if event is not None]


# --- finish reasons, indexes, names ------------------------------------------------------------


def _finish_says(value: str) -> Callable[[str, Plan, list[Event]], list[Event]]:
    """The finish set to `value` whatever the turn was (chat, Anthropic, Responses' status)."""

    def rewrite(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
        out: list[Event] = json.loads(json.dumps(written))
        for event in out:
            choices = event.get("choices") or []
            if wire == CHAT and choices and choices[0].get("finish_reason"):
                choices[0]["finish_reason"] = value
            elif wire == "anthropic" and event["type"] == "message_delta":
                event["delta"]["stop_reason"] = value
            elif wire == "responses" and event["type"] in ("response.incomplete",):
                event["type"] = "response.completed"
                event["response"]["status"] = value
                event["response"].pop("incomplete_details", None)
        return out

    return rewrite


_CALLS_FINISH = {CHAT: "tool_calls", "anthropic": "tool_use", "responses": "completed"}


def _cut_saying_calls(wire: str, plan: Plan) -> list[Event]:
    """Cut by the token limit (the request's, else halfway through the calls), the finish
    saying calls (vllm#58228)."""
    cut_plan = plan if plan.cut else cut(plan, halfway(plan))
    return _finish_says(_CALLS_FINISH[wire])(wire, cut_plan, render.events(wire, cut_plan))


def _index_zero(wire: str, _plan: Plan, written: list[Event]) -> list[Event]:
    """Every call on index 0 (ollama#15457, ai-dynamo/dynamo#4723)."""
    out: list[Event] = json.loads(json.dumps(written))
    for event in out:
        choices = event.get("choices") or [{}]
        for call in choices[0].get("delta", {}).get("tool_calls") or []:
            call["index"] = 0  # chat
        if wire == "anthropic" and "index" in event:
            event["index"] = 0
        if wire == "responses" and "output_index" in event:
            event["output_index"] = 0
        for call in event.get("message", {}).get("tool_calls") or []:
            call["function"]["index"] = 0  # ollama
    return out


def _name_every_chunk(wire: str, plan: Plan, written: list[Event]) -> list[Event]:
    """The whole name in every fragment of the call (MiniMax through NVIDIA NIM)."""
    out = list(written)
    for at, key, _text in _fragments(wire, written):
        event: Event = json.loads(json.dumps(written[at]))
        event["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = plan.calls[key].name
        out[at] = event
    return out


# --- faults of the turn itself -----------------------------------------------------------------


def _markup(plan: Plan) -> Plan:
    """The calls left in the text as Hermes markup, none parsed (vllm#28297, #50512)."""
    markup = "".join(
        f'\n<tool_call>\n{{"name": "{c.name}", "arguments": {c.arguments}}}\n</tool_call>'
        for c in plan.calls
    )
    return replace(plan, text=plan.text + markup, calls=())


def _special_token(plan: Plan) -> Plan:
    """The first call's name followed by harmony's channel tokens (vllm#32587)."""
    if not plan.calls:
        return plan
    first = replace(plan.calls[0], name=plan.calls[0].name + "<|channel|>commentary")
    return replace(plan, calls=(first, *plan.calls[1:]))


def _without_zero_argument_calls(plan: Plan) -> Plan:
    return replace(plan, calls=tuple(c for c in plan.calls if c.arguments != "{}"))


def _zero_argument_dropped(wire: str, plan: Plan) -> list[Event]:
    """A call without arguments left out, the finish still saying calls (vllm#44326)."""
    kept = _without_zero_argument_calls(plan)
    return _finish_says(_CALLS_FINISH[wire])(wire, kept, render.events(wire, kept))


def _without_text(plan: Plan) -> Plan:
    return replace(plan, text="")


_WHOLE = "its calls arrive whole, one object each: arguments are never streamed in pieces"
_NO_INDEX = "it carries no index: calls arrive whole and in order"
_NAME_ONCE = "the name is sent once, when the call opens, never beside the arguments"

FAULTS: tuple[Fault, ...] = (
    Fault(
        "plain",
        (),
        "no fault: the request's plain answer, as a sound server streams it",
        _on(WIRE_NAMES, lambda wire, plan: render.events(wire, plan)),
    ),
    Fault(
        "markup-in-content",
        ("vllm-project/vllm#28297", "vllm-project/vllm#50512", "waybarrios/vllm-mlx#107"),
        "the calls left in the text as <tool_call> markup, no call parsed, the finish a plain stop",
        _on(WIRE_NAMES, _replanned(_markup)),
    ),
    Fault(
        "special-token-in-name",
        ("vllm-project/vllm#32587",),
        "the first call's name streamed as `name<|channel|>commentary`; unstreamed it is right",
        _on(WIRE_NAMES, _replanned(_special_token)),
    ),
    Fault(
        "zero-arg-call-dropped",
        ("vllm-project/vllm#44326",),
        "a call without arguments is left out while the finish still says tool calls (the "
        "request must offer a tool without arguments)",
        _on((CHAT, "anthropic"), _zero_argument_dropped),
        {
            "responses": "it has no finish reason that names calls: the response lists its output",
            "gemini": "STOP ends a turn with calls or without: no finish says calls",
            "ollama": "done_reason is stop with calls or without: no finish says calls",
        },
    ),
    Fault(
        "arguments-buffered",
        ("vllm-project/vllm#42878", "sgl-project/sglang#11888"),
        "each call's arguments sent in one piece at its end, not streamed",
        _on((CHAT, "responses", "anthropic"), _rewritten(_buffered)),
        dict.fromkeys(("gemini", "ollama"), _WHOLE),
    ),
    Fault(
        "all-calls-index-0",
        ("ollama/ollama#15457", "ai-dynamo/dynamo#4723"),
        "every call (every block, every output item) on index 0",
        _on((CHAT, "responses", "anthropic", "ollama"), _rewritten(_index_zero)),
        {"gemini": _NO_INDEX},
    ),
    Fault(
        "arguments-resent-whole",
        ("elizaOS/eliza#16973", "Soju06/codex-lb#284"),
        "after a call's fragments, one more carrying all its arguments again",
        _on((CHAT, "responses", "anthropic"), _rewritten(_resent_whole)),
        dict.fromkeys(("gemini", "ollama"), _WHOLE),
    ),
    Fault(
        "arguments-cumulative",
        ("NousResearch/hermes-agent#35718",),
        "every fragment carries the call's arguments so far, not the new piece",
        _on((CHAT, "responses", "anthropic"), _rewritten(_cumulative)),
        dict.fromkeys(("gemini", "ollama"), _WHOLE),
    ),
    Fault(
        "name-repeated-every-chunk",
        ("NousResearch/hermes-agent#8259",),
        "the call's whole name in every chunk of it, beside each fragment",
        {CHAT: _rewritten(_name_every_chunk)},
        {
            "responses": _NAME_ONCE,
            "anthropic": _NAME_ONCE,
            "gemini": "each call is one part with its name: a repeat is another call",
            "ollama": "each call is one object with its name: a repeat is another call",
        },
    ),
    Fault(
        "length-says-tool_calls",
        ("vllm-project/vllm#58228",),
        "a call cut by max_tokens (the request's, else halfway through the calls), the finish "
        "saying tool calls; usage shows the limit reached",
        _on((CHAT, "responses", "anthropic"), _cut_saying_calls),
        dict.fromkeys(
            ("gemini", "ollama"),
            "arguments are one object: a cut call is missing, not a cut string under a finish",
        ),
    ),
    Fault(
        "stop-with-calls",
        ("BerriAI/litellm#21041",),
        "the finish says stop (end_turn) although the turn holds calls",
        {
            CHAT: _rewritten(_finish_says("stop")),
            "anthropic": _rewritten(_finish_says("end_turn")),
        },
        {
            "responses": "it has no finish reason: the response lists its output",
            "gemini": "STOP is its finish with calls: that is the plain stream",
            "ollama": "stop is its finish with calls: that is the plain stream",
        },
    ),
    Fault(
        "anthropic-input-missing-opening",
        ("vllm-project/vllm#34887",),
        "each tool_use block's first input_json_delta loses its opening {\"",
        {"anthropic": _rewritten(_opening_dropped)},
        dict.fromkeys(
            (CHAT, "responses", "gemini", "ollama"),
            "the report is of Anthropic's input_json_delta; see arguments-* for the others",
        ),
    ),
    Fault(
        "stream-disagrees-with-unstreamed",
        ("vllm-project/vllm#56263", "vllm-project/vllm#47137"),
        "streamed, the plain answer; unstreamed, the same turn without its text",
        _on(
            (CHAT, "responses", "anthropic", "ollama"), lambda wire, plan: render.events(wire, plan)
        ),
        {"gemini": "its unstreamed answer is another method (:generateContent), not served"},
        unstreamed=_without_text,
    ),
)

BY_NAME = {fault.name: fault for fault in FAULTS}


def table() -> str:
    """The modes as `toolcall serve --faults` prints them."""
    lines = []
    for fault in FAULTS:
        lines.append(f"{fault.name}: {fault.what}")
        if fault.reports:
            lines.append(f"  reproduces {', '.join(fault.reports)}")
        lines.append(f"  wires: {', '.join(fault.transforms)}")
        lines += [f"  not {wire}: {why}" for wire, why in fault.cannot.items()]
    return "\n".join(lines)
