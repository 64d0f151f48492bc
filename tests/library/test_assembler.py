"""Unit tests of `toolcall.Assembler`: the Go contract, routing, and the per-field rules.

Each rule's test names its evidence: a section of docs/FACTS.md (and the public
recording or bug report cited there), the Go package whose twin the README names
(`Assembler`), or DESIGN.md "Rules" where the rule is a design decision rather than an
observed quirk.
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from toolcall import Assembler, Delta, StreamError, ToolCall, ToolCallFunction, UsageError

# -- helpers ---------------------------------------------------------------------------------


def tc(
    index: Any = None,
    *,
    id: Any = None,
    name: Any = None,
    arguments: Any = None,
    type: Any = None,
) -> dict[str, Any]:
    """One element of `delta.tool_calls` as `json.loads` gives it; None leaves the key out."""
    out: dict[str, Any] = {}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    if type is not None:
        out["type"] = type
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    if function:
        out["function"] = function
    return out


def run(*deltas: Any, assembler: Assembler | None = None) -> list[ToolCall]:
    a = assembler or Assembler()
    for d in deltas:
        a.feed(d)
    return a.complete()


def call(index: int, id: str, name: str, arguments: str, type: str = "function") -> ToolCall:
    return ToolCall(index, id, type, ToolCallFunction(name, arguments))


def codes(a: Assembler) -> list[tuple[str, int | None]]:
    return [(d.code, d.index) for d in a.diagnostics]


# -- the Go contract -----------------------------------------------------------------------


def test_complete_is_sorted_by_index_and_leaves_out_nameless_calls() -> None:
    """Complete() returns calls sorted by index, only those with a non-empty name: seed Go doc."""
    a = Assembler()
    a.feed(tc(2, id="call_c", name="c", arguments="{}"))
    a.feed(tc(0, id="call_a", name="a", arguments='{"x":1}'))
    a.feed(tc(1, id="call_b", type="function"))  # never gets a name
    assert a.complete() == [
        call(0, "call_a", "a", '{"x":1}'),
        call(2, "call_c", "c", "{}"),
    ]


def test_pending_counts_entries_and_reset_forgets_them() -> None:
    """Pending() is the number of entries; Reset() clears all state between rounds: seed Go doc."""
    a = Assembler()
    assert a.pending() == 0
    a.feed(tc(0, id="call_a", name="a"))
    a.feed(tc(1, id="call_b", name="b"))
    a.feed(tc(0, arguments="{}"))
    assert a.pending() == 2
    a.reset()
    assert a.pending() == 0
    assert a.complete() == []
    assert a.diagnostics == []
    # After a reset the same index and id start from scratch, nothing is appended to old state.
    a.feed(tc(0, id="call_a", name="z", arguments="{}"))
    assert a.complete() == [call(0, "call_a", "z", "{}")]


def test_feed_returns_the_index_of_the_call_it_routed_to() -> None:
    """feed() returns the routed index (the harness keys its quirk fingerprint on it)."""
    a = Assembler()
    assert a.feed(tc(0, id="call_a", name="a")) == 0
    assert a.feed(tc(1, id="call_b", name="b")) == 1
    assert a.feed(tc(0, arguments="{}")) == 0
    assert a.feed(tc(id="call_b", arguments="{}")) == 1


def test_complete_can_be_called_twice_with_the_same_result() -> None:
    """complete() joins fragments but does not consume them (Go's Complete is a read)."""
    a = Assembler()
    a.feed(tc(0, id="call_a", name="a", arguments='{"k":'))
    a.feed(tc(0, arguments="1}"))
    first = a.complete()
    assert first == a.complete() == [call(0, "call_a", "a", '{"k":1}')]


@pytest.mark.parametrize(
    "value",
    [
        Delta(0, "call_1", "function", ToolCallFunction("f", "{}")),
        ToolCall(0, "call_1", "function", ToolCallFunction("f", "{}")),
        ToolCallFunction("f", "{}"),
    ],
    ids=["Delta", "ToolCall", "ToolCallFunction"],
)
def test_value_types_are_frozen_and_slotted(value: object) -> None:
    """Delta/ToolCall/ToolCallFunction are frozen, slotted values (DESIGN.md "Rules",
    _calls/call_types.py)."""
    assert not hasattr(value, "__dict__")
    assert type(value).__slots__
    field = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, 1)


def test_tool_call_to_dict_uses_the_go_json_field_names_and_round_trips() -> None:
    """ToolCall JSON tags index/id/type/function.name/function.arguments: seed Go package."""
    value = call(1, "call_00_abc", "weather", '{"location":"Paris"}')
    data = value.to_dict()
    assert json.dumps(data) == (
        '{"index": 1, "id": "call_00_abc", "type": "function", '
        '"function": {"name": "weather", "arguments": "{\\"location\\":\\"Paris\\"}"}}'
    )
    assert ToolCall.from_dict(data) == value
    assert ToolCall.from_dict(json.loads(json.dumps(data))) == value


def test_delta_to_dict_leaves_out_empty_fields_like_go_omitempty_and_round_trips() -> None:
    """Delta has `omitempty` on id, type and function fields: seed Go package."""
    head = Delta(0, "call_1", "function", ToolCallFunction("weather", ""))
    assert head.to_dict() == {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather"},
    }
    fragment = Delta(0, function=ToolCallFunction(arguments='{"a"'))
    assert fragment.to_dict() == {"index": 0, "function": {"arguments": '{"a"'}}
    unindexed = Delta(function=ToolCallFunction("f", "{}"))
    assert unindexed.to_dict() == {"function": {"name": "f", "arguments": "{}"}}
    for value in (head, fragment, unindexed, Delta()):
        assert Delta.from_dict(value.to_dict()) == value


def test_delta_from_dict_reads_null_and_empty_fields_as_absent() -> None:
    """`"id": ""` (Qwen, FACTS §5) and nulls parse to the empty defaults."""
    raw = {"index": 0, "id": "", "type": None, "function": {"arguments": "", "name": None}}
    assert Delta.from_dict(raw) == Delta(0)


@pytest.mark.parametrize(
    "raw",
    [
        {"index": True},
        {"index": 1.0},
        {"index": "x"},
        {"index": -1},
        {"id": 7},
        {"type": ["function"]},
        {"function": "f"},
        {"function": {"name": 1}},
        {"function": {"arguments": 5}},
        {"extra_content": [1]},
    ],
)
def test_delta_from_dict_rejects_wrong_types(raw: dict[str, Any]) -> None:
    """A Delta holds the wire's strings and int; anything else is a StreamError (_errors.py)."""
    with pytest.raises(StreamError):
        Delta.from_dict(raw)


@pytest.mark.parametrize(
    "raw",
    [
        {"index": "1", "id": "c", "function": {"name": "f", "arguments": "{}"}},
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": {"a": 1}}},
        {"index": 0, "id": None, "type": None, "function": {"name": "f", "arguments": None}},
        {"index": "x", "function": {"name": "f"}},
        {"index": 0, "function": {"name": "f", "arguments": [float("nan")]}},
        {"index": 0, "extra_content": "x", "function": {"name": "f"}},
    ],
)
def test_delta_from_dict_and_feed_read_a_delta_alike(raw: dict[str, Any]) -> None:
    """One reading of a delta (_calls/delta_fields.py): `"index": "1"` used to pass one door and not
    the other, so whether a delta was valid depended on how it came in."""

    def through_feed() -> object:
        assembler = Assembler()
        assembler.feed(raw)
        return [call.to_dict() for call in assembler.complete()]

    def through_delta() -> object:
        assembler = Assembler()
        assembler.feed(Delta.from_dict(raw))
        return [call.to_dict() for call in assembler.complete()]

    answers = []
    for door in (through_feed, through_delta):
        try:
            answers.append(door())
        except StreamError as exc:
            answers.append(exc.reason)
    assert answers[0] == answers[1]


# -- the three input forms -----------------------------------------------------------------


class FunctionObject:
    """Mimics openai's ChoiceDeltaToolCallFunction: attributes that may be None."""

    def __init__(self, name: str | None, arguments: str | None) -> None:
        self.name = name
        self.arguments = arguments


class ToolCallObject:
    """Mimics openai's ChoiceDeltaToolCall (.index .id .type .function)."""

    def __init__(
        self, index: int, id: str | None, type: str | None, function: FunctionObject | None
    ) -> None:
        self.index = index
        self.id = id
        self.type = type
        self.function = function


OPENAI_STREAM = [
    # FACTS §1: first chunk with id/type/name and "", then index + arguments only.
    {
        "index": 0,
        "id": "call_ZR5",
        "type": "function",
        "function": {"name": "add", "arguments": ""},
    },
    {"index": 0, "function": {"arguments": '{"a":'}},
    {"index": 1, "id": "call_X9", "type": "function", "function": {"name": "mul", "arguments": ""}},
    {"index": 0, "function": {"arguments": "2}"}},
    {"index": 1, "function": {"arguments": '{"b":3}'}},
]
OPENAI_CALLS = [call(0, "call_ZR5", "add", '{"a":2}'), call(1, "call_X9", "mul", '{"b":3}')]


def as_object(raw: dict[str, Any]) -> ToolCallObject:
    function = raw.get("function")
    return ToolCallObject(
        raw["index"],
        raw.get("id"),
        raw.get("type"),
        FunctionObject(function.get("name"), function.get("arguments")) if function else None,
    )


def as_namespace(raw: dict[str, Any]) -> SimpleNamespace:
    function = raw.get("function") or {}
    return SimpleNamespace(
        index=raw["index"],
        id=raw.get("id"),
        type=raw.get("type"),
        function=SimpleNamespace(name=function.get("name"), arguments=function.get("arguments")),
    )


@pytest.mark.parametrize(
    "convert",
    [lambda d: d, Delta.from_dict, as_object, as_namespace, OrderedDict, MappingProxyType],
    ids=["dict", "Delta", "sdk-like-object", "SimpleNamespace", "OrderedDict", "Mapping"],
)
def test_feed_accepts_dicts_deltas_and_attribute_objects(convert: Any) -> None:
    """feed takes a Delta, the json.loads dict, or the openai SDK's objects (DESIGN.md "Rules")."""
    assert run(*(convert(raw) for raw in OPENAI_STREAM)) == OPENAI_CALLS


def test_feed_accepts_a_function_that_is_a_mapping_but_not_a_dict() -> None:
    """A Mapping `function` (not exactly dict) is read, not rejected (DESIGN.md "Rules")."""
    delta = {"index": 0, "id": "c", "function": OrderedDict(name="f", arguments="{}")}
    assert run(delta) == [call(0, "c", "f", "{}")]


def test_feed_reads_an_attribute_object_whose_function_is_a_dict() -> None:
    """An object with a dict `function` must not lose the name and arguments silently."""
    obj = SimpleNamespace(index=0, id="c", type=None, function={"name": "f", "arguments": "{}"})
    assert run(obj) == [call(0, "c", "f", "{}")]


@pytest.mark.parametrize(
    "junk",
    [5, None, 1.5, "data: {}", b'{"index":0}', ["index"], ("index", 0), object()],
    ids=["int", "None", "float", "str", "bytes", "list", "tuple", "object"],
)
def test_feed_of_junk_is_a_usage_error(junk: object) -> None:
    """The caller's misuse is a UsageError, not a StreamError (DESIGN.md "Blame", h11's split).

    str, list and tuple have an `index` method, so they must not pass for delta-shaped objects.
    """
    a = Assembler()
    with pytest.raises(UsageError, match="feed\\(\\) takes a Delta"):
        a.feed(junk)
    assert a.pending() == 0


# -- routing -------------------------------------------------------------------------------


def test_interleaved_fragments_route_by_index() -> None:
    """Route by `index` when present; parallel calls never merge: FACTS §0, §9.1."""
    calls = run(
        tc(0, id="call_00_a", type="function", name="weather", arguments=""),
        tc(1, id="call_01_b", type="function", name="weather", arguments=""),
        tc(0, arguments='{"location"'),
        tc(1, arguments='{"location"'),
        tc(1, arguments=': "Paris"}'),
        tc(0, arguments=': "Rome"}'),
    )
    assert calls == [
        call(0, "call_00_a", "weather", '{"location": "Rome"}'),
        call(1, "call_01_b", "weather", '{"location": "Paris"}'),
    ]


def test_numeric_string_index_routes_like_the_integer() -> None:
    """An index sent as the string "1" is the same call as index 1 (DESIGN.md "Rules" bad input)."""
    calls = run(
        tc("1", id="call_b", name="b", arguments='{"x":'),
        tc(1, arguments="1}"),
        tc(" 0 ", id="call_a", name="a", arguments="{}"),
    )
    assert calls == [call(0, "call_a", "a", "{}"), call(1, "call_b", "b", '{"x":1}')]


VERTEX = [
    # FACTS §8,
    # cassettes/gemini/published/vertex-docs_gemini-3.1-pro_stream_function_call_arguments.yaml:
    # every chunk repeats id and the full name; call 0 opens with index 1, call 1 with index 0.
    ("function-call-c855", 1, ""),
    ("function-call-c855", 0, '{"location":"Boston, MA'),
    ("function-call-c855", 0, '"'),
    ("function-call-c855", 0, ',"unit":"celsius'),
    ("function-call-c855", 0, '"'),
    ("function-call-c855", 0, "}"),
    ("function-call-df0d", 0, ""),
    ("function-call-df0d", 1, '{"location":"New Delhi, India'),
    ("function-call-df0d", 1, '"'),
    ("function-call-df0d", 1, ',"unit":"celsius'),
    ("function-call-df0d", 1, '"'),
    ("function-call-df0d", 1, "}"),
]


def test_known_id_wins_over_a_disagreeing_index() -> None:
    """Gemini on Vertex: index disagrees with id, keying by id works: FACTS §8 (Vertex docs)."""
    a = Assembler()
    for call_id, index, arguments in VERTEX:
        a.feed(
            tc(index, id=call_id, type="function", name="get_current_weather", arguments=arguments)
        )
    calls = a.complete()
    assert {c.id: c.function.arguments for c in calls} == {
        "function-call-c855": '{"location":"Boston, MA","unit":"celsius"}',
        "function-call-df0d": '{"location":"New Delhi, India","unit":"celsius"}',
    }
    assert sorted(c.index for c in calls) == [0, 1]
    assert {c.function.name for c in calls} == {"get_current_weather"}
    assert sorted(set(codes(a))) == [
        ("index_disagrees_with_id", 0),
        ("index_disagrees_with_id", 1),
        ("name_repeated", 0),
        ("name_repeated", 1),
    ]


def test_new_id_on_an_index_held_by_another_id_starts_a_new_call() -> None:
    """Relays that number every call index 0 must not merge calls: DESIGN.md "Rules" routing rule;
    the index-mapping relay bug BerriAI/litellm#5231 (FACTS §1)."""
    a = Assembler()
    a.feed(tc(0, id="call_a", type="function", name="add", arguments='{"a":'))
    a.feed(tc(0, arguments="1}"))
    a.feed(tc(0, id="call_b", type="function", name="add", arguments='{"b":'))
    a.feed(tc(0, arguments="2}"))
    assert a.complete() == [
        call(0, "call_a", "add", '{"a":1}'),
        call(1, "call_b", "add", '{"b":2}'),
    ]
    assert codes(a) == [("index_reused", 1)]


def test_without_index_or_id_a_name_starts_a_call_and_a_bare_fragment_continues() -> None:
    """Gemini compat sends no index (and id ""): FACTS §8 (meilisearch#5712, dayu-agent#45)."""
    a = Assembler()
    a.feed(tc(id="", type="function", name="glob", arguments='{"pattern":'))
    a.feed(tc(arguments='"*"}'))
    a.feed(tc(id="", type="function", name="grep", arguments="{}"))
    assert a.complete() == [
        call(0, "", "glob", '{"pattern":"*"}'),
        call(1, "", "grep", "{}"),
    ]
    assert codes(a) == [("index_absent", 0), ("index_absent", 1)]


def test_two_unindexed_calls_with_empty_id_and_the_same_name_stay_two_calls() -> None:
    """Parallel Gemini calls without index must not merge into `{..}{..}`: FACTS §8,
    NousResearch/hermes-agent#62937, springfall2008/batpred#4904."""
    calls = run(
        tc(id="", type="function", name="get_weather", arguments='{"city":"Paris"}'),
        tc(id="", type="function", name="get_weather", arguments='{"city":"Rome"}'),
    )
    assert calls == [
        call(0, "", "get_weather", '{"city":"Paris"}'),
        call(1, "", "get_weather", '{"city":"Rome"}'),
    ]


def test_unindexed_call_with_a_known_id_routes_by_id() -> None:
    """Without index, a non-empty id already seen routes to its call: FACTS §9.1."""
    calls = run(
        tc(id="jm4owj31", name="a", arguments='{"x":'),
        tc(id="k2p9", name="b", arguments="{}"),
        tc(id="jm4owj31", arguments="1}"),
    )
    assert calls == [call(0, "jm4owj31", "a", '{"x":1}'), call(1, "k2p9", "b", "{}")]


def test_late_fragment_for_an_earlier_index_lands_on_that_call() -> None:
    """A call is not done because the next index appeared: FACTS §4, LibreChat-AI/agents#181."""
    calls = run(
        tc(0, id="add:0", type="function", name="add", arguments='{"a":'),
        tc(1, id="multiply:1", type="function", name="multiply", arguments='{"b":3}'),
        tc(0, type="function", arguments="2}"),
    )
    assert calls == [
        call(0, "add:0", "add", '{"a":2}'),
        call(1, "multiply:1", "multiply", '{"b":3}'),
    ]


def test_qwen_parallel_calls_with_empty_later_ids_do_not_merge() -> None:
    """Qwen sends `"id": ""` on later chunks; keying by id merged calls: FACTS §5,
    lobehub/lobehub#11649."""
    calls = run(
        tc(0, id="call_eee1", type="function", name="weather", arguments=""),
        tc(0, id="", type="function", arguments='{"location": "北京"}'),
        tc(1, id="call_fff2", type="function", name="weather", arguments=""),
        tc(1, id="", type="function", arguments='{"location": "上海"}'),
        tc(0, id="", type="function", arguments=""),
        tc(1, id="", type="function", arguments=""),
    )
    assert calls == [
        call(0, "call_eee1", "weather", '{"location": "北京"}'),
        call(1, "call_fff2", "weather", '{"location": "上海"}'),
    ]


def test_doubao_two_calls_in_one_tool_calls_array() -> None:
    """Doubao sends both parallel calls complete in one chunk: FACTS §7 (ai4j capture)."""
    calls = run(
        tc(0, id="call_pwdm", type="function", name="get_weather", arguments='{"city":"北京"}'),
        tc(1, id="call_k6mg", type="function", name="get_time", arguments='{"tz":"UTC+8"}'),
    )
    assert calls == [
        call(0, "call_pwdm", "get_weather", '{"city":"北京"}'),
        call(1, "call_k6mg", "get_time", '{"tz":"UTC+8"}'),
    ]


def test_empty_metadata_delta_before_any_call_opens_nothing() -> None:
    """Gemini may send a metadata-only delta (FACTS §8); it must not shift the first call's
    index or open a phantom call ("all-empty deltas change nothing", DESIGN.md "Rules"), and its
    thought signature, which the next request must carry back, joins the call that follows."""
    a = Assembler()
    assert a.feed({"extra_content": {"google": {"thought_signature": "sig"}}}) == 0
    assert a.feed({"function": {}}) == 0
    assert a.pending() == 0
    a.feed(tc(id="", type="function", name="glob", arguments="{}"))
    (only,) = a.complete()
    assert only.function == ToolCallFunction("glob", "{}") and only.index == 0
    assert only.extra_content == {"google": {"thought_signature": "sig"}}
    assert codes(a) == [("index_absent", 0)]


def test_bare_fragment_before_any_call_is_an_orphan_and_never_completes() -> None:
    """A fragment with nothing to attach to is kept aside and flagged, not attached to a later
    call (DESIGN.md "Rules": never a silent merge)."""
    a = Assembler()
    a.feed(tc(arguments='{"a":1}'))
    a.feed(tc(0, id="call_a", name="f", arguments="{}"))
    assert a.complete() == [call(1, "call_a", "f", "{}")]
    assert a.nameless() == [(0, '{"a":1}')]
    assert codes(a) == [("index_absent", 0), ("orphan_fragment", 0)]


# -- id ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "later",
    [
        {"index": 0, "id": "", "function": {"arguments": "{}"}},
        {"index": 0, "id": None, "function": {"arguments": "{}"}},
        {"index": 0, "function": {"arguments": "{}"}},
    ],
    ids=["empty", "null", "absent"],
)
def test_later_empty_null_or_absent_id_keeps_the_first(later: dict[str, Any]) -> None:
    """`""`, null and absent ids are the same: FACTS §5 (Qwen ""), §1 (OpenAI absent), §9.2."""
    a = Assembler()
    a.feed(tc(0, id="call_eee1", name="weather"))
    a.feed(later)
    assert a.complete() == [call(0, "call_eee1", "weather", "{}")]
    assert a.diagnostics == []


def test_first_non_empty_id_wins_even_when_it_comes_late() -> None:
    """An id first sent as "" (Gemini 2025, FACTS §8) is filled by the first non-empty one."""
    calls = run(
        tc(0, id="", name="f", arguments='{"a":'),
        tc(0, id="call_late", arguments="1}"),
        tc(0, id="", arguments=""),
    )
    assert calls == [call(0, "call_late", "f", '{"a":1}')]


def test_repeated_id_is_never_concatenated() -> None:
    """Vertex repeats the id on every chunk (FACTS §8); langchain-community#111 concatenated
    ids (FACTS §5)."""
    calls = run(
        tc(0, id="function-call-1", name="f", arguments='{"a":'),
        tc(0, id="function-call-1", arguments="1"),
        tc(0, id="function-call-1", arguments="}"),
    )
    assert calls == [call(0, "function-call-1", "f", '{"a":1}')]


# -- name and type -------------------------------------------------------------------------


def test_split_name_concatenates() -> None:
    """A name split across deltas is spec-legal: seed Go doc ("Split function.name")."""
    calls = run(
        tc(0, id="c", name="get_", arguments=""),
        tc(0, name="current_", arguments=""),
        tc(0, name="weather", arguments='{"a"'),
        tc(0, arguments=":1}"),
    )
    assert calls == [call(0, "c", "get_current_weather", '{"a":1}')]


def test_a_name_fragment_after_the_arguments_began_is_refused() -> None:
    """The name is settled when the arguments begin: a builder reports the call started under
    it then (`ToolCallStarted`), and a later fragment would make the turn say otherwise."""
    with pytest.raises(StreamError, match="name fragment 'weather' arrived after"):
        run(
            tc(0, id="c", name="get_", arguments=""),
            tc(0, name="current_", arguments='{"a"'),
            tc(0, name="weather", arguments=":1}"),
        )


def test_whole_name_repeat_is_not_appended() -> None:
    """Vertex repeats the full name on every chunk (FACTS §8); langchain-community#111 produced
    `get_weatherget_weather` (FACTS §5)."""
    a = Assembler()
    a.feed(tc(0, id="c", name="get_weather", arguments='{"a":'))
    a.feed(tc(0, id="c", name="get_weather", arguments="1}"))
    assert a.complete() == [call(0, "c", "get_weather", '{"a":1}')]
    assert codes(a) == [("name_repeated", 0)]


@pytest.mark.parametrize("empty", ["", None], ids=["empty", "null"])
def test_empty_or_null_name_adds_nothing(empty: str | None) -> None:
    """`""`/null names add nothing; dropping such chunks lost arguments in
    spring-ai-alibaba/spring-ai-extensions#83 (FACTS §5, §9.3)."""
    a = Assembler()
    a.feed(tc(0, id="c", name="f", arguments='{"a":'))
    a.feed({"index": 0, "function": {"name": empty, "arguments": "1}"}})
    assert a.complete() == [call(0, "c", "f", '{"a":1}')]
    assert a.diagnostics == []


@pytest.mark.parametrize(
    "later_type",
    ["function", None, "absent"],
    ids=["repeated", "null", "absent"],
)
def test_type_repeated_null_or_absent_is_function(later_type: str | None) -> None:
    """Kimi and Qwen repeat `type`, OpenAI leaves it out: FACTS §4, §5, §1, §9.4."""
    later: dict[str, Any] = {"index": 0, "function": {"arguments": "{}"}}
    if later_type != "absent":
        later["type"] = later_type
    for head_type in ("function", None):
        head = {"index": 0, "id": "c", "type": head_type, "function": {"name": "f"}}
        assert run(head, later) == [call(0, "c", "f", "{}")]


def test_empty_function_object_and_trailing_empty_delta_change_nothing() -> None:
    """Qwen's trailing `{"function":{"arguments":""},"index":0,"id":"","type":"function"}` and
    `"function":{}` (FACTS §5, cassettes/qwen/published/vercel-ai_qwen3-max-tool-call.yaml)."""
    base = [
        tc(0, id="call_eee1", type="function", name="weather", arguments=""),
        tc(0, id="", type="function", arguments='{"location": "San Francisco'),
        tc(0, id="", type="function", arguments='"}'),
    ]
    plain = Assembler()
    for d in base:
        plain.feed(d)
    noisy = Assembler()
    for d in [
        *base,
        {"function": {"arguments": ""}, "index": 0, "id": "", "type": "function"},
        {"index": 0, "id": "", "type": "function", "function": {}},
        {"index": 0, "function": None},
    ]:
        noisy.feed(d)
    expected = [call(0, "call_eee1", "weather", '{"location": "San Francisco"}')]
    assert plain.complete() == noisy.complete() == expected
    assert noisy.pending() == 1
    assert noisy.diagnostics == plain.diagnostics == []


# -- arguments -----------------------------------------------------------------------------


def test_object_arguments_are_serialised_once_and_flagged() -> None:
    """Arguments sent as a JSON object are serialised once (DESIGN.md "Rules"; FACTS §9.8 says no
    provider was seen doing it, so it is flagged)."""
    a = Assembler()
    a.feed(
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": {"city": "北京", "n": 2}}}
    )
    assert a.complete() == [call(0, "c", "f", '{"city": "北京", "n": 2}')]
    assert codes(a) == [("arguments_object", 0)]


def test_cumulative_resend_replaces_the_buffer_and_is_flagged() -> None:
    """A fragment that repeats the whole buffer and extends it is a re-send (DESIGN.md "Rules")."""
    a = Assembler()
    a.feed(tc(0, id="c", name="f", arguments='{"city":'))
    a.feed(tc(0, arguments='{"city":"Paris"'))
    a.feed(tc(0, arguments='{"city":"Paris","unit":"c"}'))
    assert a.complete() == [call(0, "c", "f", '{"city":"Paris","unit":"c"}')]
    assert codes(a) == [("arguments_resent", 0)]


def test_fragment_starting_like_the_buffer_is_not_a_resend_when_concatenation_is_valid() -> None:
    """'{"a":' then '{"a":1}}' is a nested object, not a re-send (DESIGN.md "Rules"; FACTS §9.8: the
    GLM-via-OpenRouter head chunk is not a duplicate)."""
    a = Assembler()
    a.feed(tc(0, id="c", name="f", arguments='{"a":'))
    a.feed(tc(0, arguments='{"a":1}}'))
    assert a.complete() == [call(0, "c", "f", '{"a":{"a":1}}')]
    assert a.diagnostics == []


def test_empty_head_then_whole_arguments_is_not_a_resend() -> None:
    """GLM via OpenRouter: id+name chunk with "" then one whole-arguments chunk (FACTS §3)."""
    a = Assembler()
    a.feed(tc(0, id="c", type="function", name="add", arguments=""))
    a.feed(tc(0, arguments='{"a":2,"b":3}'))
    assert a.complete() == [call(0, "c", "add", '{"a":2,"b":3}')]
    assert a.diagnostics == []


def test_many_small_fragments_assemble_a_long_buffer() -> None:
    """Concatenation is linear: 200k 4-char fragments (DeepSeek sends tiny pieces, FACTS §2).

    No time is asserted; a quadratic join would simply not finish within the suite's budget.
    """
    text = json.dumps({"k": "abcd" * 199_998}, separators=(",", ":"))
    assert len(text) % 4 == 0
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    assert len(pieces) == 200_000
    a = Assembler()
    a.feed(tc(0, id="call_00_x", type="function", name="f", arguments=""))
    for piece in pieces:
        a.feed({"index": 0, "function": {"arguments": piece}})
    [result] = a.complete()
    assert result.function.arguments == text
    assert a.diagnostics == []


def test_the_openai_sdks_own_delta_objects_are_fed_as_they_are() -> None:
    """Users of the openai SDK hand over `chunk.choices[0].delta.tool_calls` elements unchanged.

    The SDK parses each chunk into `ChoiceDeltaToolCall` objects whose absent fields are None
    (DESIGN.md "Rules": no conversion step for the caller).
    """
    sdk = pytest.importorskip("openai.types.chat.chat_completion_chunk")
    delta, function = sdk.ChoiceDeltaToolCall, sdk.ChoiceDeltaToolCallFunction
    assembler = Assembler()
    assembler.feed(delta(index=0, id="call_a", type="function", function=function(name="add")))
    assembler.feed(delta(index=1, id="call_b", type="function", function=function(name="mul")))
    for index, piece in [(0, '{"a":'), (1, '{"b":'), (0, " 1}"), (1, " 2}")]:
        assembler.feed(delta(index=index, function=function(arguments=piece)))
    assert [c.to_dict() for c in assembler.complete()] == [
        {
            "index": 0,
            "id": "call_a",
            "type": "function",
            "function": {"name": "add", "arguments": '{"a": 1}'},
        },
        {
            "index": 1,
            "id": "call_b",
            "type": "function",
            "function": {"name": "mul", "arguments": '{"b": 2}'},
        },
    ]
