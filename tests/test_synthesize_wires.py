"""Synthesized wire cassettes: current, shaped like the recordings they follow, same turn as chat.

Each provider's scenarios rendered on its other wires must be byte-identical to what
`synthesize` writes today, must show only events whose keys the followed real recordings
show (a dropped or renamed field fails here), and must assemble to the same turn as the
provider's chat cassette of the same scenario, ids aside (the cross-wire check).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

import toolcall
from toolcall.harness import synthesize
from toolcall.harness.checks import check_cell, cross_wire
from toolcall.harness.reading import wires
from toolcall.harness.suite import cassettes, recordings
from toolcall.harness.suite.cassettes import CHAT, cassette_path
from toolcall.harness.suite.profiles import ProfileError, load_suite
from toolcall.harness.synthesize import (
    Shape,
    Unshown,
    cassette_text,
    structure_problems,
)

ROOT = Path(__file__).parents[1]
SUITE = load_suite(ROOT)
CELLS = [(p, c, w) for p, c, w in synthesize.cells(SUITE) if w != CHAT]
RENDERED = []
for _p, _c, _w in CELLS:
    _s = synthesize.shape(SUITE, _p.key, _w)
    try:
        RENDERED.append((_p, _c, _w, _s, cassette_text(SUITE, _p, _c, _w)))
    except Unshown:
        continue
RENDERED_IDS = [f"{p.key}@{w}/{c.scenario}" for p, c, w, _s, _t in RENDERED]


def followed_bodies(wire: str, shape: Shape) -> list[bytes]:
    found = {r.name: r for r in recordings.discover(SUITE.cassettes, wire=wire)}
    return [found[name].body() for name in shape.follows]


def test_every_offer_with_evidence_is_rendered() -> None:
    """OpenAI and DeepSeek on Responses, DeepSeek and Qwen on Anthropic Messages, Gemini's own."""
    rows = {f"{p.key}@{w}" for p, _c, w, _s, _t in RENDERED}
    assert rows == {
        "openai@responses",
        "deepseek@responses",
        "deepseek@anthropic",
        "qwen@anthropic",
        "gemini@gemini",
    }


def test_a_shape_for_every_offer_with_recordings_or_documentation() -> None:
    """An offer only third parties report is not rendered; every other one of the providers is,
    and no shape is declared for a wire its provider does not offer."""
    evidenced = {
        (o.provider, o.wire)
        for o in SUITE.wire_offers
        if o.provider in SUITE.providers and (o.recordings or o.documentation)
    }
    shaped = {(o.provider, o.wire) for o in SUITE.wire_offers if o.synthesis is not None}
    assert shaped == evidenced


def test_a_malformed_synthesis_block_is_refused(suite_copy: Path) -> None:
    """The shape is data, held to providers.schema.json like the rest of the profile."""
    providers = suite_copy / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    broken = text.replace(
        "ids: {message: 'msg_01{alnum:22}'", "ids: {mesage: 'msg_01{alnum:22}'", 1
    )
    assert broken != text
    providers.write_text(broken, encoding="utf-8")
    with pytest.raises(ProfileError, match="mesage"):
        load_suite(suite_copy)


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_committed_wire_cassette_is_current(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    path = cassette_path(SUITE.cassettes, provider.key, cell.scenario, wire=wire)
    assert path.is_file(), f"{path} is missing: run make synthesize"
    assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run make synthesize"


def test_no_wire_cassette_is_left_over() -> None:
    """A cassette the synthesizer no longer writes (a left-out cell) is not left behind."""
    wanted = {
        cassette_path(SUITE.cassettes, p.key, c.scenario, wire=w) for p, c, w, _s, _t in RENDERED
    }
    on_disk = set(SUITE.cassettes.glob(f"*/{cassettes.WIRES}/*/*.yaml"))
    assert on_disk == wanted


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_provenance_follows_existing_recordings(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    provenance = yaml.safe_load(text)["metadata"]["provenance"]
    assert provenance["kind"] == "synthesized" and provenance["wire"] == wire
    assert len(provenance["follows"]) == len(shape.follows)
    for follow in provenance["follows"]:
        assert (ROOT / follow).is_file(), follow


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_structure_matches_the_followed_recordings(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    body = synthesize.render(SUITE, provider, cell, wire).encode()
    assert structure_problems(wire, body, followed_bodies(wire, shape)) == []


@pytest.mark.parametrize("change", ["drop", "rename"])
def test_structure_check_catches_a_dropped_or_renamed_field(change: str) -> None:
    provider, cell, wire, shape, _text = next(r for r in RENDERED if r[2] == "responses")
    body = synthesize.render(SUITE, provider, cell, wire)
    first = wires.objects(wire, body.encode())
    target = next(e for e in first if e["type"] == "response.function_call_arguments.delta")
    value = target.pop("item_id")
    if change == "rename":
        target["itemId"] = value
    broken = "".join(f"data: {json.dumps(e)}\n\n" for e in first).encode()
    problems = structure_problems(wire, broken, followed_bodies(wire, shape))
    assert problems and "item_id" in problems[0]


def test_a_reply_no_recording_shows_is_left_out_not_invented() -> None:
    provider = SUITE.providers["openai"]
    cell = provider.cells["text_only"]
    with pytest.raises(Unshown, match=r"output_item\.added/message"):
        synthesize.render(SUITE, provider, cell, "responses")


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_same_turn_as_chat(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    chat_path = cassettes.cassette_path(SUITE.cassettes, provider.key, cell.scenario)
    chat = toolcall.assemble(cassettes.response_body(cassettes.load(chat_path)))
    body = synthesize.render(SUITE, provider, cell, wire).encode()
    turn = toolcall.assemble(body, wire=wire)
    assert turn.tool_calls or turn.content
    assert cross_wire.turn_differences(chat, turn) == []


def test_cross_wire_check_sees_a_changed_argument() -> None:
    """The comparison the check reuses is not blind: a changed argument is a difference."""
    provider, cell, wire, _shape, _text = RENDERED[0]
    chat_path = cassettes.cassette_path(SUITE.cassettes, provider.key, cell.scenario)
    chat = toolcall.assemble(cassettes.response_body(cassettes.load(chat_path)))
    body = synthesize.render(SUITE, provider, cell, wire)
    changed = body.replace("Lisbon", "Lissabon").replace("Tokyo", "Tokio")
    assert changed != body
    turn = toolcall.assemble(changed.encode(), wire=wire)
    assert cross_wire.turn_differences(chat, turn)


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_conformance_row_passes(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    outcome = check_cell(SUITE, provider, cell, wire)
    assert (outcome.row, outcome.status, outcome.findings) == (f"{provider.key}@{wire}", "pass", [])


def test_conformance_row_fails_when_the_shape_changes_under_the_cassette() -> None:
    """Following other recordings renders other ids and fields: stale, and the skeleton of the
    committed events is no longer the followed recordings' (OpenAI's `obfuscation`)."""
    provider, cell, wire, _shape, _text = next(r for r in RENDERED if r[0].key == "openai")
    deepseek = synthesize.shape(SUITE, "deepseek", "responses")
    assert deepseek is not None
    offers = tuple(
        dataclasses.replace(o, synthesis={**o.synthesis, "follows": list(deepseek.follows)})
        if (o.provider, o.wire) == ("openai", "responses") and o.synthesis
        else o
        for o in SUITE.wire_offers
    )
    changed = dataclasses.replace(SUITE, wire_offers=offers)
    outcome = check_cell(changed, provider, cell, wire)
    assert outcome.status == "fail"
    checks = {f.check for f in outcome.findings}
    assert {"stale", "structure"} <= checks


def test_gemini_structure_check_enters_parts() -> None:
    """Gemini's events have no type: the check must still see a part's dropped signature key
    renamed, inside `candidates[].content.parts[]`."""
    provider, cell, wire, shape, _text = next(r for r in RENDERED if r[2] == "gemini")
    chunk = wires.objects(wire, synthesize.render(SUITE, provider, cell, wire).encode())[0]
    part = chunk["candidates"][0]["content"]["parts"][0]
    part["thought_signature"] = part.pop("thoughtSignature")
    broken = f"data: {json.dumps(chunk)}\n\n".encode()
    problems = structure_problems(wire, broken, followed_bodies(wire, shape))
    assert problems and "thoughtSignature" in problems[0]


WIRE_REQUEST_KEYS = {
    "responses": {"model", "stream", "instructions", "input", "tools", "tool_choice"},
    "anthropic": {"model", "max_tokens", "stream", "system", "messages", "tools", "tool_choice"},
    "gemini": {"systemInstruction", "contents", "tools", "toolConfig"},
}


@pytest.mark.parametrize(("provider", "cell", "wire", "shape", "text"), RENDERED, ids=RENDERED_IDS)
def test_request_is_the_wires_own(provider, cell, wire, shape, text) -> None:  # type: ignore[no-untyped-def]
    """The cassette's request is the scenario's, worded for the wire, at the offer's endpoint."""
    request = yaml.safe_load(text)["interactions"][0]["request"]
    body = json.loads(request["body"])
    assert set(body) == WIRE_REQUEST_KEYS[wire]
    assert "{model}" not in request["uri"] and cell.model in json.dumps(body) + request["uri"]
    chat = SUITE.request_body(provider, cell)
    names = [t["function"]["name"] for t in chat["tools"]]
    assert names and all(name in json.dumps(body["tools"]) for name in names)
    last = {
        "responses": lambda: body["input"][-1]["content"],
        "anthropic": lambda: body["messages"][-1]["content"],
        "gemini": lambda: body["contents"][-1]["parts"][0]["text"],
    }[wire]()
    assert last == chat["messages"][-1]["content"]


def test_a_request_the_wire_cannot_word_is_an_error() -> None:
    chat = {"model": "m", "messages": [{"role": "function", "content": "x"}], "tools": []}
    with pytest.raises(synthesize.SynthesisError, match="only system, user, assistant and tool"):
        synthesize.wire_request("anthropic", chat)
