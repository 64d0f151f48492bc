"""The wire SDKs in the matrix: each judged on its wire's recordings by their expectations.

Every adapter runs its SDK in this process on the recorded bytes (the HTTP client's transport
replaced, nothing else), so these tests need the SDKs (`pip install -e '.[peers]'`) and skip
without them. One altered expectation per adapter shows the judging can fail.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from pathlib import Path

import httpx
import pytest

from toolcall.harness.matrix import run as matrix
from toolcall.harness.matrix.verdict import PASS, judge
from toolcall.harness.peers import (
    CHAT,
    Assembled,
    Implementation,
    Stream,
    Unavailable,
    builtin,
    reads,
)
from toolcall.harness.peers.reference import Reference
from toolcall.harness.suite import recordings
from toolcall.harness.suite.case import WIRE_RECORDING, Case, Filters, cases
from toolcall.harness.suite.profiles import load_suite
from toolcall.harness.suite.recordings import JSON_ARRAY

ROOT = Path(__file__).resolve().parents[3]

#: Adapter name, the module it needs, the wire it reads.
ADAPTERS = [
    ("openai-responses", "openai", "responses"),
    ("anthropic-sdk", "anthropic", "anthropic"),
    ("google-genai", "google.genai", "gemini"),
]


@functools.cache
def _all_cases() -> tuple[Case, ...]:
    return tuple(cases(load_suite(ROOT), Filters(kind=WIRE_RECORDING)))


def _cases(wire: str | None = None) -> list[Case]:
    return [case for case in _all_cases() if wire is None or case.wire == wire]


def _adapter(name: str, module: str) -> Implementation:
    pytest.importorskip(module)
    try:
        return builtin()[name]()
    except Unavailable as exc:  # installed, but too old for the wire
        pytest.skip(str(exc))


def _verdicts(peer: Implementation, cases: list[Case]) -> dict[str, str]:
    return {r.scenario: r.verdict.label for r in matrix._column(peer, cases, float("inf"))}


def test_every_wire_recording_is_a_row_the_reference_passes() -> None:
    cases = _cases()
    assert len(cases) == 30  # 27 recordings, 3 synthesized cases
    assert {case.wire for case in cases} == {"responses", "anthropic", "gemini", "ollama"}
    assert all(case.scenario.startswith(f"{case.wire}/") for case in cases)
    assert set(_verdicts(Reference(), cases).values()) == {PASS}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "module", "wire"), ADAPTERS)
def test_each_sdk_gets_only_its_wire_rows_and_passes_them(
    name: str, module: str, wire: str
) -> None:
    """Vertex's streamed arguments are the one exception: google-genai hands each `partialArgs`
    part over as a call of its own, leaving the assembly to its user."""
    peer = _adapter(name, module)
    verdicts = _verdicts(peer, _cases())
    assert verdicts and all(scenario.startswith(f"{wire}/") for scenario in verdicts)
    # Gemini's JSON array is not sent to an SDK, which asks for `alt=sse`
    assert len(verdicts) == len([c for c in _cases(wire) if not c.framing])
    failing = {scenario: label for scenario, label in verdicts.items() if label != PASS}
    if wire == "gemini":
        assert failing and all("partialArgs" in scenario for scenario in failing)
        assert set(failing.values()) == {"wrong number of calls"}
    else:
        assert failing == {}


def _fails_an_altered_expectation(peer: Implementation, case: Case) -> None:
    """The verdict on `peer`'s answer turns when the expected first call is renamed: the
    comparison reads what the peer assembled, it does not pass whatever comes back."""
    first = case.expected.calls[0]
    altered = dataclasses.replace(
        case.expected,
        calls=(dataclasses.replace(first, name=first.name + "_altered"), *case.expected.calls[1:]),
    )
    verdict = judge(altered, peer.assemble(case.stream))
    assert not verdict.passed and "_altered" in verdict.reason


@pytest.mark.parametrize(("name", "module", "wire"), ADAPTERS)
def test_each_sdk_fails_an_altered_expectation(name: str, module: str, wire: str) -> None:
    peer = _adapter(name, module)
    case = next(c for c in _cases(wire) if "partialArgs" not in c.scenario)
    assert judge(case.expected, peer.assemble(case.stream)).passed
    _fails_an_altered_expectation(peer, case)


def test_a_wire_peer_has_no_chat_rows_and_a_chat_peer_no_wire_rows() -> None:
    assert {CHAT, "anthropic"} <= set(Reference().wires)

    class ChatOnly:
        name, version, wires = "chat-only", "0", (CHAT,)

        def assemble(self, stream: object) -> object:
            raise AssertionError("not to be called on a wire row")

    assert _verdicts(ChatOnly(), _cases("responses")) == {}  # type: ignore[arg-type]


def test_a_json_array_row_goes_only_to_a_peer_that_names_that_framing() -> None:
    """Gemini answers a request without `alt=sse` with one JSON array; an SDK asks for `alt=sse`
    and is never sent one, so its column has no such row, and ours has every one."""

    class EventStreamOnly:
        name, version, wires = "event-stream-only", "0", ("gemini",)

        def assemble(self, stream: Stream) -> Assembled:
            assert stream.body.startswith(b"data:"), "a JSON array was handed to an SSE reader"
            return Assembled(calls=())

    gemini = _cases("gemini")
    arrays = {c.scenario for c in gemini if c.framing == JSON_ARRAY}
    assert arrays and all(c.body.startswith(b"[") for c in gemini if c.framing)
    assert reads(Reference(), "gemini", JSON_ARRAY)
    assert not reads(EventStreamOnly(), "gemini", JSON_ARRAY)  # type: ignore[arg-type]
    seen = _verdicts(EventStreamOnly(), gemini)  # type: ignore[arg-type]
    assert set(seen) == {c.scenario for c in gemini} - arrays
    assert arrays <= set(_verdicts(Reference(), gemini))


@pytest.mark.parametrize(("name", "module", "wire"), ADAPTERS)
def test_an_sdk_that_is_not_installed_is_unavailable(
    name: str, module: str, wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module.split(".")[0], None)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(Unavailable):
        builtin()[name]()


def test_the_anthropic_sdk_reads_only_named_events_which_is_why_they_are_put_back() -> None:
    """A `.jsonl` source dropped the `event:` lines the API sends; without them the anthropic
    SDK reads no event at all, so `Recording.body` (recordings) restores them by `type`."""
    peer = _adapter("anthropic-sdk", "anthropic")
    case = next(c for c in _cases("anthropic") if "quoted-escaped" in c.scenario)
    assert b"event: content_block_delta\n" in case.body
    unnamed = b"".join(
        line + b"\n"
        for line in case.body.splitlines(keepends=False)
        if not line.startswith(b"event:")
    )
    assert judge(case.expected, peer.assemble(case.stream)).passed
    bare = case.with_body(unnamed)
    assert _verdicts(peer, [bare]) == {case.scenario: "crash"}  # no message at all


def test_a_wire_recording_without_its_expectation_stops_the_run(tmp_path: Path) -> None:
    folder = tmp_path / recordings.WIRES / "responses"
    folder.mkdir(parents=True)
    source = {"wire": "responses", "framing": "sse", "provider": "p", "model": "m"}
    (folder / "one.source.json").write_text(json.dumps(source))
    (folder / "one.sse").write_bytes(b"data: {}\n\n")
    with pytest.raises(recordings.RecordingError, match="responses/one"):
        recordings.discover(tmp_path)


VERCEL = ["vercel-ai-responses", "vercel-ai-anthropic", "vercel-ai-gemini"]


@pytest.mark.slow
@pytest.mark.parametrize("name", VERCEL)
def test_each_ai_sdk_provider_reads_a_recording_of_its_wire_over_http(name: str) -> None:
    """One recording a wire (Node per stream is slow; `make matrix` runs them all), and an
    altered expectation fails. On Gemini the AI SDK makes ids up where the wire has none; they
    are reported as the empty id the wire sent."""
    try:
        peer = builtin()[name]()
    except Unavailable as exc:
        pytest.skip(str(exc))
    wire = name.removeprefix("vercel-ai-")
    # Vertex's streamed arguments, without ids, on Gemini; the first recording elsewhere.
    case = next(c for c in _cases(wire) if wire != "gemini" or "partialArgs" in c.scenario)
    assert _verdicts(peer, [case]) == {case.scenario: PASS}
    _fails_an_altered_expectation(peer, case)


def test_a_registered_body_is_served_at_its_wire_path_only() -> None:
    """The one way a recorded body reaches an HTTP client: registered with the simulator for a
    wire; a client calling another endpoint is told which one serves it."""
    from toolcall.harness.peers import Stream
    from toolcall.harness.peers.serving import serving

    with serving(Stream("anthropic", b"data: {}\n\n", {})) as served:
        base, headers = served.base_url, dict(served.headers)
        assert base.endswith("/v1")  # as the Messages SDKs are given it
        right = httpx.post(base + "/messages", json={"stream": True}, headers=headers)
        assert (right.status_code, right.content) == (200, b"data: {}\n\n")
        wrong = httpx.post(base + "/chat/completions", json={"stream": True}, headers=headers)
        message = wrong.json()["error"]["message"]
        assert wrong.status_code == 404
        assert "of the anthropic wire, served at …/v1/messages" in message
        other = httpx.post(base + "/responses", json={"stream": True}, headers=headers)
        assert other.status_code == 404 and "not at this responses path" in other.text
    gone = httpx.post(base + "/messages", json={"stream": True}, headers=headers)
    assert gone.status_code == 404 and "no registered body" in gone.text


def test_the_terminal_gives_the_wire_rows_a_grid_of_their_own_that_fits() -> None:
    """Thirteen columns would not fit 100 characters in one grid; chat rows show the chat
    readers' columns, wire rows the wire readers', each numbered as in the list above."""
    from toolcall.harness.matrix.verdict import Verdict
    from toolcall.harness.reports import matrix as matrix_report

    chat = [f"chat-peer-{n}" for n in range(7)]
    wire = [f"wire-peer-{n}" for n in range(6)]
    result = matrix.Matrix(implementations=[(name, "1") for name in ["toolcall", *chat, *wire]])
    for name in ["toolcall", *chat]:
        result.results.append(matrix.Result(name, "openai", "single_call", Verdict(PASS)))
    for name in ["toolcall", *wire]:
        row = ("anthropic", "anthropic/fantasy_claude-sonnet-4_multi_tool", Verdict(PASS))
        result.results.append(matrix.Result(name, *row, wire="anthropic"))
    lines = matrix_report.text(result).splitlines()
    assert max(len(line) for line in lines) <= matrix_report.WIDTH
    headers = [line.split() for line in lines if line.startswith("provider ")]
    assert headers == [
        ["provider", "scenario", *map(str, range(1, 9))],
        ["provider", "scenario", "1", *map(str, range(9, 15))],
    ]
