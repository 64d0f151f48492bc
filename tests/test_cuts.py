"""Cut-off streams on every wire: real streams cut after half their argument events, closed with
the wire's own ending for a cut, and judged by one rule, that the cut is reported.

Each variant must keep its source's events verbatim up to the cut, end the way its wire ends a
cut turn, and be refused by the reference with `TruncatedError` (conformance, the matrix and the
plugin's cases all carry them); a reader that takes the cut for a finished turn must fail.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import toolcall
from toolcall.harness.checks import check_cut
from toolcall.harness.matrix.verdict import judge
from toolcall.harness.peers import Assembled, Call
from toolcall.harness.reading import streams, wires
from toolcall.harness.suite import case
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[1]
SUITE = load_suite(ROOT)
CUTS = list(streams.cuts(SUITE))
IDS = [f"{c.provider}@{c.wire}-{c.scenario}" for c in CUTS]
#: How each wire says that its output was cut.
ENDINGS = {
    "chat": (b'"finish_reason":"length"',),
    "responses": (b'"type":"response.incomplete"', b'"reason":"max_output_tokens"'),
    "anthropic": (b'"stop_reason":"max_tokens"',),
    "gemini": (b'"finishReason":"MAX_TOKENS"',),
    "ollama": (b'"done_reason":"length"',),
}


def source_body(cut: streams.Cut) -> bytes:
    if cut.recording is not None:
        return cut.recording.body()
    from toolcall.harness.suite import cassettes

    return cassettes.response_body(cassettes.load(ROOT / cut.source))


def test_every_wire_has_cut_off_streams() -> None:
    assert {c.wire for c in CUTS} == set(ENDINGS)
    assert len({c.scenario for c in CUTS if c.wire == "chat"}) == 1
    assert all(c.scenario.endswith("_truncated") for c in CUTS)


@pytest.mark.parametrize("cut", CUTS, ids=IDS)
def test_a_cut_keeps_its_source_and_ends_as_its_wire_ends_a_cut(cut: streams.Cut) -> None:
    source = [e.raw for e in wires.events(cut.wire, source_body(cut))]
    pieces = [e.raw for e in wires.events(cut.wire, cut.body)]
    kept = next(n for n, (a, b) in enumerate(zip(source, pieces, strict=False)) if a != b)
    assert 0 < kept < len(source), "nothing was kept, or nothing was cut"
    closing = b"".join(pieces[kept:])
    assert all(word in closing for word in ENDINGS[cut.wire]), closing[:300]
    assert len(cut.body) < len(source_body(cut)) + 400


@pytest.mark.parametrize("cut", CUTS, ids=IDS)
def test_the_reference_reports_every_cut(cut: streams.Cut) -> None:
    """Under every re-split too: `make conformance` (test_conformance.py) checks each one."""
    with pytest.raises(toolcall.TruncatedError):
        toolcall.assemble(cut.body, wire=cut.wire)


def test_a_cut_taken_for_a_finished_turn_fails_the_check() -> None:
    """Whole calls (Ollama's) pass as a turn once the ending says `stop`: the check sees it."""
    cut = next(c for c in CUTS if c.wire == "ollama")
    unreported = cut.body.replace(b'"done_reason":"length"', b'"done_reason":"stop"')
    outcome = check_cut(SUITE, dataclasses.replace(cut, body=unreported))
    assert outcome.status == "fail"
    assert outcome.findings[0].check == "cut" and "the cut passed" in outcome.findings[0].observed


def test_a_stream_with_no_arguments_has_no_cut() -> None:
    text = b'{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}\n'
    assert streams.cut("ollama", text) is None


def test_the_matrix_judges_every_wire_cut_and_fails_a_reader_that_ignores_it() -> None:
    cases = list(case.cases(SUITE, case.Filters(kind=case.CUT)))
    assert {c.wire for c in cases} == set(ENDINGS)
    assert all(c.expected.truncated for c in cases)
    ignored = Assembled(calls=(Call("call_1", "add", '{"a": 1}'),))
    assert not judge(cases[0].expected, ignored).passed
    assert judge(
        cases[0].expected, Assembled(error="TruncatedError: the output hit a limit")
    ).passed
