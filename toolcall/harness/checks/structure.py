"""The structure of a stream, with everything that varies from run to run masked out.

A synthesized cassette claims to look like its provider. The claim is checked by rendering a
first-party recording's own reply (its calls, text and reasoning, from the hand-written
expectation) through the provider's synthesis templates and comparing the two streams' skeletons:
envelope keys and their order, which deltas carry `id`, `type`, `name` and `role`, where
`finish_reason` and usage sit, `null` against `""`, arguments whole or in fragments. Ids,
timestamps, fingerprints, token counts and text are masked (a string becomes `<str>`, a number
`<num>`, except the values that are structure: `index`, `finish_reason`, `role`, `type`,
`object`), and a run of chunks with the same skeleton counts once, because how many fragments a
model cuts its text into is not a property of the wire.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import synthesize
from ..reading import walk
from ..suite import recordings
from ..suite.profiles import Provider, Suite

#: Keys whose values are part of the structure, kept as they are.
LITERAL_KEYS = frozenset({"index", "finish_reason", "role", "type", "object"})
#: Keys whose values are masked whole: their inner shape varies by model and account.
OPAQUE_KEYS = frozenset({"usage"})
#: Keys whose strings are random padding of random length, empty or not.
RANDOM_KEYS = frozenset({"obfuscation"})

Skeleton = Any


@dataclass(frozen=True)
class Obj:
    """A JSON object's skeleton: its members in the order the stream sent them."""

    members: tuple[tuple[str, Skeleton], ...]

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self.members]


def skeleton(value: Any, key: str = "") -> Skeleton:
    """`value` with run-specific data masked; objects keep their keys in order (`Obj`)."""
    if key in LITERAL_KEYS and not isinstance(value, (Mapping, list)):
        return value
    if key in OPAQUE_KEYS and isinstance(value, Mapping):
        return "<object>"
    if isinstance(value, Mapping):
        return Obj(tuple((str(k), skeleton(v, str(k))) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(skeleton(item) for item in value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return "<num>"
    if isinstance(value, str):
        return "" if value == "" and key not in RANDOM_KEYS else "<str>"
    return "<other>"


def outline(body: bytes, *, done: bool = True) -> list[Skeleton]:
    """The stream's chunk skeletons, a run of equal ones kept once, then `[DONE]` if sent (and
    `done` asks for it: a source published as JSON lines cannot show it)."""
    stream = walk.read(body)
    runs: list[Skeleton] = []
    for view in stream.chunks:
        shape = skeleton(view.chunk)
        if not runs or runs[-1] != shape:
            runs.append(shape)
    if stream.done and done:
        runs.append("[DONE]")
    return runs


def differences(recorded: Sequence[Skeleton], rendered: Sequence[Skeleton]) -> list[str]:
    """Where the rendered outline departs from the recorded one: one line each, JSON paths.

    Compared run by run; the first run that differs is described in full, then the lengths,
    since everything after a missing or extra run is shifted and would only repeat the news.
    """
    for number, (want, got) in enumerate(zip(recorded, rendered, strict=False)):
        if want != got:
            return [f"run {number}: {line}" for line in _diff(want, got, "$")]
    if len(recorded) != len(rendered):
        extra = len(rendered) > len(recorded)
        first = rendered[len(recorded)] if extra else recorded[len(rendered)]
        return [
            f"the recording has {len(recorded)} runs of chunks, the synthesis {len(rendered)}: "
            f"{'extra' if extra else 'missing'} {_describe(first)}"
        ]
    return []


def _diff(want: Skeleton, got: Skeleton, path: str) -> list[str]:
    if isinstance(want, Obj) and isinstance(got, Obj):
        lines = []
        if want.keys != got.keys and set(want.keys) == set(got.keys):
            lines.append(f"{path}: keys in order {want.keys} recorded, {got.keys} synthesized")
        lines += [
            f"{path}.{k}: recorded, absent from the synthesis"
            for k in want.keys
            if k not in got.keys
        ]
        lines += [
            f"{path}.{k}: synthesized, absent from the recording"
            for k in got.keys
            if k not in want.keys
        ]
        theirs = dict(got.members)
        for key, value in want.members:
            if key in theirs:
                lines += _diff(value, theirs[key], f"{path}.{key}")
        return lines
    if isinstance(want, tuple) and isinstance(got, tuple):
        if len(want) != len(got):
            return [f"{path}: {len(want)} items recorded, {len(got)} synthesized"]
        lines = []
        for number, (a, b) in enumerate(zip(want, got, strict=True)):
            lines += _diff(a, b, f"{path}[{number}]")
        return lines
    if want != got:
        return [f"{path}: recorded {_describe(want)}, synthesized {_describe(got)}"]
    return []


def _describe(value: Skeleton) -> str:
    if isinstance(value, Obj):
        return "{" + ", ".join(value.keys) + "}"
    return repr(value)


def scenario_for(provider: Provider, expected: Mapping[str, Any]) -> str:
    """The scenario whose synthesis settings fit a reply: reasoning first, then parallel calls,
    one call, or text alone."""
    calls = expected.get("tool_calls") or []
    reasoning_cell = provider.cells.get("reasoning_then_call")
    if expected.get("reasoning") and reasoning_cell and not reasoning_cell.not_applicable:
        return "reasoning_then_call"
    if len(calls) > 1:
        return "parallel_calls"
    return "single_call" if calls else "text_only"


def compare_recording(suite: Suite, recording: recordings.Recording, body: bytes) -> list[str]:
    """How the provider's synthesis, given the recording's own reply, departs from the recording.

    The reply comes from the hand-written expectation (calls with their names and arguments,
    text, reasoning). `[DONE]` is left out of the comparison when the recording's source format
    could not carry it.
    """
    provider = suite.providers[recording.provider]
    expected = recording.expected
    reply = {
        "reasoning": expected.get("reasoning", ""),
        "content": expected.get("content", ""),
        "calls": [
            {"name": c["name"], "arguments": c["arguments"]} for c in expected.get("tool_calls", [])
        ],
    }
    cell = provider.cells[scenario_for(provider, expected)]
    rendered = synthesize.render_reply(suite, provider, cell, reply).encode("utf-8")
    done = recordings.shows_framing(recording.provenance)
    return differences(outline(body, done=done), outline(rendered, done=done))
