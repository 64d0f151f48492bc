"""The one case model (`toolcall.harness.suite.case`): every kind of case listed in one order
with the ids the reports and pytest show, every filter narrowing as the reports name things, a
filter that names nothing refused in one line, each case checked by its kind's checks, and the
reference passing every case it would be handed in the matrix, synthesized cells of every wire
included."""

from __future__ import annotations

import functools
import shutil
from collections import Counter
from pathlib import Path

import pytest

from toolcall.harness.matrix.verdict import judge
from toolcall.harness.peers.reference import Reference
from toolcall.harness.reading.wires import NAMES as WIRES
from toolcall.harness.recording.replay import ReplayError
from toolcall.harness.suite import case as case_module
from toolcall.harness.suite import recordings
from toolcall.harness.suite.case import (
    CELL,
    CUT,
    KINDS,
    PUBLISHED,
    ROUTE,
    WIRE_RECORDING,
    Case,
    CaseError,
    FilterError,
    Filters,
    cases,
    check,
    find,
)
from toolcall.harness.suite.cassettes import CHAT
from toolcall.harness.suite.profiles import DIRECT, load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite(ROOT)


@functools.cache
def every() -> tuple[Case, ...]:
    """Every case of the checkout, listed once for the tests that look at many."""
    return tuple(cases(SUITE))


def kept(filters: Filters) -> list[Case]:
    """What `cases` keeps of every case, without listing them again (`cases` is `_validate`,
    then `Filters.keeps` over the listing)."""
    return [c for c in every() if filters.keeps(c)]


def ids(filters: Filters) -> list[str]:
    return [c.id for c in kept(filters)]


def test_every_kind_is_listed_once_in_one_order_under_the_ids_the_reports_show() -> None:
    assert len({c.id for c in every()}) == len(every())
    # The kinds come in one order; a checkout may hold cassettes recorded through a route
    # (`make record ROUTE=...` writes one), which then come after the published recordings.
    order = list(dict.fromkeys(c.kind for c in every()))
    assert order == [k for k in (CELL, PUBLISHED, ROUTE, WIRE_RECORDING, CUT) if k in order]
    assert {CELL, PUBLISHED, WIRE_RECORDING, CUT} <= set(order)
    by_id = {c.id: c for c in every()}
    chat, wire = by_id["openai-single_call"], by_id["deepseek@anthropic-single_call"]
    assert (chat.kind, chat.wire, chat.provider, chat.scenario) == (
        CELL,
        CHAT,
        "openai",
        "single_call",
    )
    assert (wire.kind, wire.wire, wire.provider) == (CELL, "anthropic", "deepseek")
    assert wire.source == "cassettes/deepseek/wires/anthropic/single_call.yaml"
    published = by_id["openai/published/fantasy_gpt-5_multi_tool"]
    assert (published.kind, published.scenario) == (PUBLISHED, "published/fantasy_gpt-5_multi_tool")
    recording = by_id["wires/gemini/llm-gemini_gemini-2.5-flash_tools_json-array"]
    assert (recording.kind, recording.provider, recording.offered_by) == (
        WIRE_RECORDING,
        "google-gemini-api",
        "gemini",
    )
    assert recording.framing == "json-array" and recording.provenance["model"]
    cut = by_id["anthropic@anthropic-anthropic/fantasy_claude-sonnet-4_multi_tool_truncated"]
    assert (cut.kind, cut.scenario) == (
        CUT,
        "anthropic/fantasy_claude-sonnet-4_multi_tool_truncated",
    )
    assert cut.source == "cassettes/wires/anthropic/fantasy_claude-sonnet-4_multi_tool.sse"
    assert by_id["openai@chat-long_arguments_truncated"].kind == CUT
    # Each recording is one case of its kind (a checkout's own recordings change the numbers).
    counts = Counter(c.kind for c in every())
    found = recordings.discover(SUITE.cassettes, keep_unreadable=True)
    assert counts[PUBLISHED] == sum(r.wire == CHAT for r in found) > 0
    assert counts[WIRE_RECORDING] == sum(r.wire != CHAT for r in found) > 0
    assert counts[CELL] > 0 and counts[CUT] > 0


def test_listing_reads_no_stream_and_a_case_reads_its_own_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: object) -> None:
        raise ReplayError("no replay while listing")

    monkeypatch.setattr(case_module, "replay", refuse)
    listed = list(cases(SUITE, Filters(provider="qwen")))
    assert len(listed) > 10
    with pytest.raises(CaseError, match="qwen-single_call: no replay while listing"):
        _ = find(SUITE, "qwen-single_call").body
    synthesized = find(SUITE, "qwen@anthropic-single_call")  # read from its file, not replayed
    assert synthesized.body.startswith(b"event: message_start")
    assert synthesized.stream.case == "qwen@anthropic-single_call"


def test_a_cell_that_does_not_apply_is_a_case_with_its_reason_and_no_stream() -> None:
    chat = find(SUITE, "openai-tool_stream_call")
    assert "GLM-only" in chat.not_applicable
    wire = find(SUITE, "openai@responses-text_only")
    assert wire.not_applicable.startswith("left out: ")
    with pytest.raises(CaseError, match="not applicable"):
        _ = wire.body
    assert check(SUITE, wire).status == "n/a"
    assert find(SUITE, "openai@responses-single_call").not_applicable == ""


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(wire="ollama"), {"wires/ollama/fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool"}),
        (Filters(provider="deepseek@anthropic"), {"deepseek@anthropic-long_arguments_truncated"}),
        (Filters(provider="anthropic"), {"wires/anthropic/synthesized_anthropic_web_search"}),
        (
            Filters(provider="google-vertex"),
            {
                "google-vertex@gemini-gemini/vercel-ai_vertex_gemini-3.1-pro-preview_partialArgs_parallel_truncated"
            },
        ),
        (
            Filters(route="openrouter-groq"),
            {"kimi/published/fantasy_openrouter-groq_kimi-k2_multi_tool"},
        ),
        (Filters(scenario="single_call"), {"openai-single_call", "gemini@gemini-single_call"}),
        (Filters(scenario="long_arguments_truncated"), {"qwen@anthropic-long_arguments_truncated"}),
        (
            Filters(scenario="anthropic/fantasy_claude-sonnet-4_multi_tool"),
            {"wires/anthropic/fantasy_claude-sonnet-4_multi_tool"},
        ),
        (
            Filters(scenario="published/fantasy_gpt-5_multi_tool"),
            {"openai/published/fantasy_gpt-5_multi_tool"},
        ),
        (Filters(case="glm-single_call"), {"glm-single_call"}),
        (
            Filters(case="qwen@*"),
            {"qwen@anthropic-text_only", "qwen@anthropic-long_arguments_truncated"},
        ),
        (
            Filters(kind=WIRE_RECORDING, wire="responses"),
            {"wires/responses/synthesized_responses_mcp_call"},
        ),
    ],
)
def test_each_filter_keeps_the_cases_that_name_it_and_no_other(
    filters: Filters, expected: set[str]
) -> None:
    found = {c.id for c in kept(filters)}
    assert expected <= found
    # Each filter is one property of a case, read the same way by every one of them.
    others = [c for c in every() if c.id not in found]
    assert others and not any(filters.keeps(c) for c in others)


def test_cases_narrows_by_every_filter_at_once_as_keeps_says() -> None:
    filters = Filters(
        wire="anthropic",
        provider="deepseek",
        route=DIRECT,
        scenario="long_arguments_truncated",
        case="deepseek@*",
        kind=CUT,
    )
    assert [c.id for c in cases(SUITE, filters)] == ["deepseek@anthropic-long_arguments_truncated"]
    assert ids(filters) == ["deepseek@anthropic-long_arguments_truncated"]


def test_the_filters_mean_what_the_reports_show() -> None:
    assert {c.wire for c in kept(Filters(wire="anthropic"))} == {"anthropic"}
    assert {c.kind for c in kept(Filters(wire=CHAT))} == {CELL, PUBLISHED, CUT}
    # A provider takes its cells on every wire and the recordings its wire offers name.
    gemini = kept(Filters(provider="gemini"))
    assert {c.wire for c in gemini} == {CHAT, "gemini"}
    assert {c.kind for c in gemini} == {CELL, PUBLISHED, WIRE_RECORDING, CUT}
    # The provider a wire recording's provenance names takes its recordings only.
    google = kept(Filters(provider="google-gemini-api"))
    assert google and {c.kind for c in google} == {WIRE_RECORDING, CUT}
    assert ids(Filters(scenario="wires/anthropic/fantasy_claude-sonnet-4_multi_tool")) == [
        "wires/anthropic/fantasy_claude-sonnet-4_multi_tool"
    ]
    # The cut column holds every cut-off variant, as the conformance report shows it.
    cuts = kept(Filters(scenario="long_arguments_truncated"))
    assert cuts == list(kept(Filters(kind=CUT))) and {c.wire for c in cuts} == set(WIRES)
    routed = kept(Filters(route="openrouter-groq"))
    assert routed and all(c.kind == PUBLISHED and c.route == "openrouter-groq" for c in routed)
    assert len(ids(Filters(route=DIRECT))) + sum(c.route != DIRECT for c in every()) == len(every())
    for kind in (CELL, PUBLISHED, WIRE_RECORDING, CUT):
        assert {c.kind for c in kept(Filters(kind=kind))} == {kind}
    assert ids(Filters(kind=ROUTE)) == [c.id for c in every() if c.kind == ROUTE]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (Filters(wire="carrier-pigeon"), "unknown wire 'carrier-pigeon'; known: ["),
        (Filters(kind="cassette"), f"unknown kind 'cassette'; known: {sorted(KINDS)}"),
        (Filters(route="openruter"), "unknown route 'openruter'; known: ['avian', "),
        (Filters(provider="antropic"), "unknown provider 'antropic'; known: ['anthropic', "),
        (Filters(scenario="singel_call"), "unknown scenario 'singel_call'; known: ["),
        (
            Filters(case="glm-singel_call"),
            "no case has the id 'glm-singel_call'; nearest: glm-single_call",
        ),
        (Filters(case="nobody@*"), "no case has the pattern 'nobody@*'"),
    ],
)
def test_a_filter_that_names_nothing_is_one_line_naming_what_is_known(
    filters: Filters, message: str
) -> None:
    with pytest.raises(FilterError) as raised:
        cases(SUITE, filters)  # refused when asked, before any case is listed
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_long_list_of_known_columns_is_cut_and_names_the_nearest() -> None:
    with pytest.raises(FilterError) as raised:
        cases(SUITE, Filters(scenario="singel_call"))
    said = str(raised.value)
    assert "more; nearest: ['single_call'" in said and len(said) < 600
    for wire in WIRES:  # every wire is a known value, with cases
        assert kept(Filters(wire=wire))


@pytest.mark.slow  # a copy of the suite
def test_a_route_cassette_is_a_case_of_its_route(suite_copy: Path) -> None:
    folder = suite_copy / "cassettes" / "gemini" / "routes" / "openrouter"
    folder.mkdir(parents=True)
    shutil.copy(suite_copy / "cassettes" / "gemini" / "single_call.yaml", folder)
    suite = load_suite(suite_copy)
    (routed,) = cases(suite, Filters(kind=ROUTE))
    assert (routed.id, routed.route, routed.provider) == (
        "gemini@openrouter-single_call",
        "openrouter",
        "gemini",
    )
    assert routed.source == "cassettes/gemini/routes/openrouter/single_call.yaml"
    assert [c.id for c in cases(suite, Filters(provider="gemini@openrouter"))] == [routed.id]
    assert routed.id in [c.id for c in cases(suite, Filters(route="openrouter"))]
    kinds = [c.kind for c in cases(suite)]
    assert kinds.index(ROUTE) > kinds.index(PUBLISHED) and kinds.index(ROUTE) < kinds.index(
        WIRE_RECORDING
    )
    assert routed.body == find(suite, "gemini-single_call").body
    outcome = check(suite, routed)
    assert (outcome.row, outcome.scenario) == ("gemini@openrouter", "single_call")
    # The copied cassette says it came directly, not through the route: a finding.
    assert outcome.status == "fail" and outcome.findings[0].check == "provenance"


def test_check_runs_the_checks_of_each_kind() -> None:
    for case_id, row, scenario in [
        ("glm-parallel_calls", "glm", "parallel_calls"),
        ("qwen@anthropic-parallel_calls", "qwen@anthropic", "parallel_calls"),
        (
            "openai/published/fantasy_gpt-5_multi_tool",
            "openai",
            "published/fantasy_gpt-5_multi_tool",
        ),
        (
            "wires/ollama/fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool",
            "ollama-cloud@ollama",
            "wires/ollama/fantasy_ollama-cloud_gpt-oss-20b_api-chat_tool",
        ),
        ("kimi@chat-long_arguments_truncated", "kimi", "long_arguments_truncated"),
    ]:
        outcome = check(SUITE, find(SUITE, case_id))
        assert (outcome.row, outcome.scenario, outcome.status) == (row, scenario, "pass"), case_id


@pytest.mark.slow  # every stream replayed and assembled
def test_the_reference_passes_every_case_the_matrix_hands_it_on_every_wire() -> None:
    """The synthesized cells of every wire reach the matrix, judged as chat's are: the
    reference's own turn and the scenario's schema (read in chat completions' finish words)."""
    reference = Reference()
    judged = [c for c in every() if not c.not_applicable]
    failing = [c.id for c in judged if not judge(c.expected, reference.assemble(c.stream)).passed]
    assert failing == []
    wired = [c for c in judged if c.kind == CELL and c.wire != CHAT]
    assert {c.wire for c in wired} == {"responses", "anthropic", "gemini"} and len(wired) == 23
    assert all(
        c.expected.schema and c.expected.document["finish_reason"] in ("tool_calls", "stop")
        for c in wired
    )


def test_a_case_can_be_judged_over_altered_bytes() -> None:
    original = find(SUITE, "wires/anthropic/vercel-ai_claude-sonnet-4-5_quoted-escaped-input")
    altered = original.with_body(b"")
    assert (
        altered.body == b"" and altered.expected == original.expected and altered.id == original.id
    )
    assert isinstance(altered, Case) and original.body != b""
