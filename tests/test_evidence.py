"""The suite rests on evidence: published recordings judge the profiles and the synthesis.

(a) every published recording carries its provenance, a redistributable license and a body that
    is verbatim (its SHA-256 matches the source's); (b) every declared quirk names recordings that
    exist and are of the evidence level it claims; (c) every first-party recording's own reply,
    rendered through its provider's synthesis, has the recording's structure (or a waiver says
    why not); (d) a profile edited the way a mistaken author would edit it, with its cassettes
    regenerated to agree, turns the suite red and names the recording that contradicts it;
(e) every change a route declares names recordings through that route that show it, and a
    recording through a route is explained by the route's changes; (f) no two published
    recordings are the same stream under two labels unless each says so.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness import cli, synthesize
from toolcall.harness.checks import check_cell, check_recording, structure, where_to_fix
from toolcall.harness.reading import wires
from toolcall.harness.recording.replay import replay_own_request
from toolcall.harness.suite import cassettes, recordings
from toolcall.harness.suite.profiles import DIRECT, STRUCTURE, Suite, load_suite

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_suite(ROOT)
RECORDINGS = recordings.discover(SUITE.cassettes, wire="chat")
FIRST_PARTY_TURNS = [
    r for r in RECORDINGS if r.origin == "first-party" and "error" not in r.expected
]
#: Licenses that allow the recordings to be redistributed here (with their notices).
REDISTRIBUTABLE = {"Apache-2.0", "MIT", "CC-BY-4.0"}
EVIDENCE_ORIGIN = {"first-party": "first-party", "relay": "relay", "documentation": "documentation"}


def ids(found: list[recordings.Recording]) -> list[str]:
    return [r.id for r in found]


# -- (a) provenance ------------------------------------------------------------------------------


def test_every_provider_has_evidence() -> None:
    """A provider rests on published recordings, on cassettes recorded from it, or on both."""
    backed = {r.provider for r in RECORDINGS} | {
        p.key for p, _s, c in SUITE.cells() if c.provenance.get("kind") == "recorded"
    }
    bare = sorted(set(SUITE.providers) - backed)
    assert bare == [], (
        f"no evidence for {bare}: record its cells (make record PROVIDER=<name> ACCEPT=1) or "
        "bring in a published recording (toolcall publish)"
    )


@pytest.mark.parametrize("recording", RECORDINGS, ids=ids(RECORDINGS))
def test_recording_is_verbatim_and_redistributable(recording: recordings.Recording) -> None:
    assert recording.provenance["license"] in REDISTRIBUTABLE, recording.provenance["license"]
    body = cassettes.response_body(cassettes.load(recording.path))
    source = recordings.source_bytes(body, recording.provenance)
    assert recordings.sha256(source) == recording.provenance["sha256"]


def test_a_changed_byte_is_caught(tmp_path: Path) -> None:
    original = next(r for r in RECORDINGS if r.name.startswith("fantasy_gpt-4o"))
    folder = tmp_path / "cassettes" / "openai" / "published"
    folder.mkdir(parents=True)
    text = original.path.read_text(encoding="utf-8")
    (folder / original.path.name).write_text(
        text.replace('"arguments":": 2, "', '"arguments":": 7, "', 1), "utf-8"
    )
    shutil.copy(original.expected_path, folder / original.expected_path.name)
    (tampered,) = recordings.discover(tmp_path / "cassettes", wire="chat")
    outcome = check_recording(SUITE, tampered)
    checks = {f.check for f in outcome.findings}
    assert {"verbatim", "expected"} <= checks, outcome.report()


def test_a_recording_without_an_expectation_is_refused(tmp_path: Path) -> None:
    original = RECORDINGS[0]
    folder = tmp_path / original.provider / "published"
    folder.mkdir(parents=True)
    shutil.copy(original.path, folder / original.path.name)
    with pytest.raises(recordings.RecordingError, match="no expectation beside it"):
        recordings.discover(tmp_path, wire="chat")


def test_synthesize_never_overwrites_published_or_recorded(tmp_path: Path) -> None:
    target = tmp_path / "cassettes" / "qwen" / "single_call.yaml"
    target.parent.mkdir(parents=True)
    shutil.copy(RECORDINGS[0].path, target)
    shutil.copytree(SUITE.cassettes / "wires", tmp_path / "cassettes" / "wires")
    before = target.read_bytes()
    written, _left_out = synthesize.synthesize(dataclasses.replace(SUITE, root=tmp_path), "qwen")
    assert written and target not in written
    assert target.read_bytes() == before


# -- (b) each declared quirk names its evidence ---------------------------------------------------


def test_declared_quirks_name_recordings_of_the_claimed_kind() -> None:
    by_stem = {(r.provider, r.name): r for r in RECORDINGS}
    problems = []
    for provider in SUITE.providers.values():
        for quirk, entry in provider.quirk_evidence.items():
            for stem in entry.get("recordings", []):
                recording = by_stem.get((provider.key, stem))
                where = f"providers.{provider.key}.quirks.{quirk}"
                if recording is None:
                    problems.append(f"{where}: no published recording {stem!r}")
                elif recording.origin != EVIDENCE_ORIGIN[entry["evidence"]]:
                    problems.append(
                        f"{where}: {stem} is {recording.origin}, not {entry['evidence']}"
                    )
        for stem, quirk in provider.waivers:
            recording = by_stem.get((provider.key, stem))
            if recording is None:
                problems.append(f"providers.{provider.key}.waivers: no recording {stem!r}")
            elif quirk == STRUCTURE and recording.origin != "first-party":
                # Only first-party recordings are compared with the synthesis.
                problems.append(f"providers.{provider.key}.waivers: {stem} is not first-party")
    assert problems == []


# -- (c) synthesis has the structure of the recordings ---------------------------------------------


@pytest.mark.parametrize("recording", FIRST_PARTY_TURNS, ids=ids(FIRST_PARTY_TURNS))
def test_synthesis_has_the_recordings_structure(recording: recordings.Recording) -> None:
    provider = SUITE.providers[recording.provider]
    body = replay_own_request(recording.path).body
    differences = structure.compare_recording(SUITE, recording, body)
    waiver = provider.waivers.get((recording.name, STRUCTURE))
    if waiver is not None:
        # A waiver must still be needed, or it hides the next real difference.
        assert differences, f"{recording.id}: the structure waiver is no longer needed"
        pytest.skip(f"waived: {waiver}")
    assert differences == [], f"{recording.id} vs providers.{provider.key}.synthesis"


def _with_qwen(**changes: Any) -> Suite:
    """The suite with Qwen's profile changed in memory (no file is written)."""
    qwen = dataclasses.replace(SUITE.providers["qwen"], **changes)
    return dataclasses.replace(SUITE, providers={**SUITE.providers, "qwen": qwen})


def _replaced(value: Any, old: str, new: str) -> Any:
    """`value` (a synthesis block) with `old` replaced by `new` in every string in it."""
    if isinstance(value, dict):
        return {key: _replaced(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item, old, new) for item in value]
    return value.replace(old, new) if isinstance(value, str) else value


QWEN_TOOL_CALL = "vercel-ai_qwen3-max-tool-call"


def test_conformance_fails_a_synthesis_without_the_recordings_structure() -> None:
    """The check runs in every conformance run (`check_recording`): a template that drops the
    `id: ""` Qwen sends on later deltas, with the quirk left alone, fails the recording with
    the synthesis named and what to edit."""
    synthesis = _replaced(SUITE.providers["qwen"].synthesis, '"id":"",', "")
    assert synthesis != SUITE.providers["qwen"].synthesis
    mistaken = _with_qwen(synthesis=synthesis)
    (recording,) = [r for r in RECORDINGS if r.name == QWEN_TOOL_CALL]
    assert check_recording(SUITE, recording).status == "pass"
    outcome = check_recording(mistaken, recording)
    assert outcome.status == "fail"
    assert {f.check for f in outcome.findings} == {"structure"}, outcome.report()
    assert outcome.findings[0].path == "providers.qwen.synthesis"
    assert "make synthesize PROVIDER=qwen" in outcome.fix
    assert "(providers.qwen.synthesis)" in outcome.fix


def test_a_structure_waiver_no_longer_needed_fails_conformance() -> None:
    waivers = {**SUITE.providers["qwen"].waivers, (QWEN_TOOL_CALL, STRUCTURE): "once differed"}
    (recording,) = [r for r in RECORDINGS if r.name == QWEN_TOOL_CALL]
    outcome = check_recording(_with_qwen(waivers=waivers), recording)
    assert outcome.status == "fail"
    (finding,) = outcome.findings
    assert (finding.check, finding.path) == ("structure", "providers.qwen.waivers")
    assert outcome.fix.startswith(f"drop the structure waiver of {QWEN_TOOL_CALL}")


# -- (d) a mistaken author is caught ---------------------------------------------------------------


def test_a_mistaken_profile_is_caught_by_the_recording(tmp_path: Path) -> None:
    """Flip Qwen's `later_id` from `""` to absent in both the quirks and the synthesis, and
    regenerate the copy's cassettes: they agree with the flipped profile, so only the recording
    can say the profile is wrong, and it must."""
    for name in ("providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    providers = tmp_path / "providers.yaml"
    text = providers.read_text(encoding="utf-8")
    quirk_old = "later_id: {value: empty,"
    template_old = """fragment: '{"index":$index,"id":"","type":"function","""
    assert quirk_old in text and template_old in text
    trailing_old = """"index":$index,"id":"","type":"function"}'"""
    assert trailing_old in text
    text = (
        text.replace(quirk_old, "later_id: {value: absent,")
        .replace(template_old, """fragment: '{"index":$index,"type":"function",""")
        .replace(trailing_old, """"index":$index,"type":"function"}'""")
    )
    providers.write_text(text, encoding="utf-8")
    mistaken = load_suite(tmp_path)
    synthesize.synthesize(mistaken, "qwen")

    qwen = mistaken.providers["qwen"]
    cells = [check_cell(mistaken, qwen, qwen.cells["single_call"])]
    assert [c.status for c in cells] == ["pass"], cells[0].report()
    contradicted = [
        check_recording(mistaken, r)
        for r in recordings.discover(mistaken.cassettes, "qwen", wire="chat")
    ]
    lines = [f.line() for outcome in contradicted for f in outcome.findings]
    assert any(
        "providers.qwen.quirks.later_id" in line and "vercel-ai_qwen3-max-tool-call" in line
        for line in lines
    ), lines
    recording = next(
        r
        for r in recordings.discover(mistaken.cassettes, "qwen", wire="chat")
        if r.name.endswith("tool-call")
    )
    body = replay_own_request(recording.path).body
    assert any("id" in line for line in structure.compare_recording(mistaken, recording, body))


# -- (e) routes: each change names recordings through the route ---------------------------------


def test_route_changes_name_recordings_through_that_route() -> None:
    by_stem = {r.name: r for r in RECORDINGS}
    problems = []
    for route in SUITE.routes.values():
        for provider, declared in route.change_evidence.items():
            for quirk, entry in declared.items():
                for stem in entry.get("recordings", []):
                    recording = by_stem.get(stem)
                    where = f"routes.{route.key}.changes.{provider}.{quirk}"
                    if recording is None:
                        problems.append(f"{where}: no published recording {stem!r}")
                    elif (recording.route, recording.provider) != (route.key, provider):
                        problems.append(
                            f"{where}: {stem} is {recording.provider} through {recording.route!r}"
                        )
    assert problems == []


def test_every_recordings_route_is_a_route() -> None:
    unknown = [(r.id, r.route) for r in RECORDINGS if r.route not in SUITE.routes]
    assert unknown == []


def test_relayed_kimi_recordings_rest_on_their_routes_not_on_waivers() -> None:
    """The quirks Kimi's profile does not share with a host are the host route's changes: the
    recordings pass with no waiver of Kimi's naming them."""
    routed = [r for r in RECORDINGS if r.provider == "kimi" and r.route != DIRECT]
    assert len(routed) == 10
    waived = {stem for stem, _quirk in SUITE.providers["kimi"].waivers}
    assert waived.isdisjoint(r.name for r in routed)
    for recording in routed:
        outcome = check_recording(SUITE, recording)
        assert outcome.status == "pass", outcome.report()


def _suite_with_routes(tmp_path: Path, edit: tuple[str, str]) -> Path:
    for name in ("providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    routes = tmp_path / "routes.yaml"
    text = routes.read_text(encoding="utf-8")
    old, new = edit
    assert old in text
    routes.write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path


def test_a_route_change_the_recording_does_not_show_is_caught(tmp_path: Path) -> None:
    root = _suite_with_routes(
        tmp_path,
        ("id_pattern: {value: '[0-9]+',", "id_pattern: {value: 'call_[0-9]+',"),
    )
    suite = load_suite(root)
    (recording,) = [
        r
        for r in recordings.discover(suite.cassettes, "kimi", wire="chat")
        if r.route == "openrouter-deepinfra"
    ]
    lines = [f.line() for f in check_recording(suite, recording).findings]
    assert any(
        line.startswith("quirk-evidence routes.openrouter-deepinfra.changes.kimi.id_pattern")
        for line in lines
    ), lines
    assert any(
        line.startswith("quirks routes.openrouter-deepinfra.changes.kimi.id_pattern")
        for line in lines
    )
    place = "(routes.openrouter-deepinfra.changes.kimi.id_pattern)"
    findings = check_recording(suite, recording).findings
    fixes = [where_to_fix.for_recording(suite, recording, f) for f in findings]
    assert any(fix.startswith("edit routes.yaml:") and place in fix for fix in fixes), fixes


def test_a_route_without_its_change_leaves_the_recording_unexplained(tmp_path: Path) -> None:
    """Without the route's `later_name` change, Baseten's `name: ""` contradicts Kimi's profile,
    and the finding names the provider's quirk and the recording."""
    line = (
        "        later_name: {value: empty, evidence: published, recordings: "
        "[fantasy_openrouter-baseten_kimi-k2_multi_tool]}\n"
    )
    suite = load_suite(_suite_with_routes(tmp_path, (line, "")))
    (recording,) = [
        r
        for r in recordings.discover(suite.cassettes, "kimi", wire="chat")
        if r.route == "openrouter-baseten"
    ]
    outcome = check_recording(suite, recording)
    assert outcome.status == "fail"
    assert [f.path for f in outcome.findings] == ["providers.kimi.quirks.later_name"]
    assert "fantasy_openrouter-baseten_kimi-k2_multi_tool" in outcome.findings[0].observed


# -- (f) the same stream under two labels ---------------------------------------------------------


def _bodies(recordings: list[recordings.Recording]) -> dict[str, bytes]:
    return {
        f"{r.provider}/{r.name}": cassettes.response_body(cassettes.load(r.path))
        for r in recordings
    }


def test_no_two_published_recordings_are_one_stream_unless_they_say_so() -> None:
    groups = recordings.duplicates(_bodies(RECORDINGS))
    by_label = {f"{r.provider}/{r.name}": r for r in RECORDINGS}
    declared = {label: set(r.provenance.get("same_stream_as", [])) for label, r in by_label.items()}
    found: dict[str, set[str]] = {label: set() for label in by_label}
    for group in groups:
        for label in group:
            found[label] |= set(group) - {label}
    assert found == declared


def test_the_duplicate_check_finds_one_stream_under_two_labels() -> None:
    """Six Kimi recordings share their call ids (`functions.add:0`); only the same generation
    (chunk ids too) is one stream, and a copy of one is found."""
    bodies = _bodies([r for r in RECORDINGS if r.provider == "kimi"])
    assert recordings.duplicates(bodies) == []
    baseten = bodies["kimi/fantasy_openrouter-baseten_kimi-k2_multi_tool"]
    bodies["kimi/relabelled"] = baseten.replace(b'"provider":"BaseTen"', b'"provider":"Other"')
    assert recordings.duplicates(bodies) == [
        ("kimi/fantasy_openrouter-baseten_kimi-k2_multi_tool", "kimi/relabelled")
    ]
    ids = {recordings.stream_identity(body)[1] for body in bodies.values()}
    assert (("functions.add:0", "functions.multiply:1")) in ids
    with pytest.raises(wires.UnreadableBody):
        recordings.stream_identity(b"data: {not json}\n\n")


# -- (g) `toolcall publish` brings a recording in as the suite keeps it -------------------------


@pytest.mark.parametrize(
    ("provider", "stem", "jsonl"),
    [
        ("openai", "openai-python_gpt-4o_text", False),
        ("grok", "vercel-ai_grok-3-mini-tool-call", True),
    ],
)
def test_publish_writes_the_recording_the_suite_holds(
    provider: str, stem: str, jsonl: bool, suite_copy: Path, tmp_path: Path
) -> None:
    """`toolcall publish FILE --provider P --repository ... --origin O [--jsonl]` as
    docs/MATRIX.md gives it, on a committed recording's own source, in a copy from which that
    recording was removed: it writes the same cassette, refused by the suite until its
    expectation is written beside it, and then passing."""
    (kept,) = [r for r in RECORDINGS if (r.provider, r.name) == (provider, stem)]
    folder = suite_copy / "cassettes" / provider / "published"
    (folder / kept.path.name).unlink()
    (folder / kept.expected_path.name).unlink()
    source = tmp_path / f"{stem}.txt"
    source.write_bytes(kept.source())
    given = kept.provenance
    arguments = ["--root", str(suite_copy), "publish", str(source), "--provider", provider]
    arguments += ["--repository", given["source"]["repository"], "--path", given["source"]["path"]]
    arguments += ["--commit", given["source"]["commit"], "--license", given["license"]]
    arguments += ["--model", given["model"], "--origin", given["origin"]]
    assert cli.main(arguments + (["--jsonl"] if jsonl else [])) == 0
    assert (folder / kept.path.name).read_bytes() == kept.path.read_bytes()
    with pytest.raises(recordings.RecordingError, match="no expectation beside it"):
        recordings.discover(suite_copy / "cassettes", provider, wire="chat")
    shutil.copy(kept.expected_path, folder / kept.expected_path.name)
    suite = load_suite(suite_copy)
    (published,) = [
        r for r in recordings.discover(suite.cassettes, provider, wire="chat") if r.name == stem
    ]
    assert check_recording(suite, published).status == "pass"


def _one_per_framing() -> list[recordings.Recording]:
    """A published recording of each wire other than chat in each framing it is kept in."""
    found: dict[tuple[str, str], recordings.Recording] = {}
    for recording in recordings.discover(SUITE.cassettes):
        if recording.wire == "chat" or recording.synthesized:
            continue
        if recording.origin in recordings.ORIGINS:
            found.setdefault((recording.wire, recording.provenance["framing"]), recording)
    return list(found.values())


WIRE_RECORDINGS = _one_per_framing()


@pytest.mark.parametrize("kept", WIRE_RECORDINGS, ids=[r.id for r in WIRE_RECORDINGS])
def test_publish_keeps_another_wires_recording_as_the_suite_holds_it(
    kept: recordings.Recording,
    suite_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`toolcall publish FILE --wire W ...` (as `toolcall doctor` prints it for a capture of
    another wire) on a committed recording's own bytes, in a copy from which it was removed:
    the same body under cassettes/wires/<wire>/, a `.source.json` saying what the committed
    one says, refused until its expectation is written, and then passing."""
    folder = suite_copy / "cassettes" / "wires" / kept.wire
    sidecar = kept.path.name.removesuffix(kept.path.suffix) + recordings.SOURCE_SUFFIX
    for name in (kept.path.name, kept.expected_path.name, sidecar):
        (folder / name).unlink()
    source = tmp_path / kept.path.name
    source.write_bytes(kept.source())
    given = kept.provenance
    where = given["provenance"]
    arguments = ["--root", str(suite_copy), "publish", str(source), "--wire", kept.wire]
    arguments += ["--provider", given["provider"], "--model", given["model"]]
    arguments += ["--repository", where["repository"], "--path", where["path"]]
    arguments += ["--commit", where["commit"], "--license", where["license"]]
    arguments += ["--origin", given["party"]]
    for key in ("endpoint", "extraction", "route"):
        arguments += [f"--{key}", given[key]] if key in given else []
    jsonl = given["framing"] == "jsonl"
    assert cli.main(arguments + (["--jsonl"] if jsonl else [])) == 0
    assert (folder / kept.path.name).read_bytes() == kept.path.read_bytes()
    offer = recordings.offer_of(SUITE, kept)
    assert offer is not None
    said = capsys.readouterr().out
    assert f"under providers.yaml's {offer.provider}.wires.{kept.wire}.recordings" in said
    with pytest.raises(recordings.RecordingError):
        recordings.load(folder / sidecar)  # no expectation beside it
    shutil.copy(kept.expected_path, folder / kept.expected_path.name)
    published = recordings.load(folder / sidecar)
    for key in ("kind", "wire", "framing", "provider", "model", "party", "endpoint", "route"):
        assert published.provenance.get(key) == given.get(key), key
    assert published.source_sha256 == kept.source_sha256
    assert check_recording(load_suite(suite_copy), published).status == "pass"


@pytest.mark.parametrize(
    ("wire", "provider", "body", "says"),
    [
        ("anthropic", "anthropic", None, "cannot read"),
        ("anthropic", "nobody", b"data: {}\n\n", "the names its recordings may give: anthropic"),
        ("chat", "nobody", b"data: {}\n\n", "unknown provider 'nobody'"),
    ],
)
def test_publish_refuses_what_it_cannot_keep_in_one_line(
    wire: str,
    provider: str,
    body: bytes | None,
    says: str,
    suite_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "x.sse"
    if body is not None:
        source.write_bytes(body)
    arguments = ["--root", str(suite_copy), "publish", str(source), "--wire", wire]
    arguments += ["--provider", provider, "--repository", "o/n", "--path", "p", "--commit", "c"]
    arguments += ["--license", "MIT", "--model", "m", "--origin", "first-party"]
    before = sorted(p for p in (suite_copy / "cassettes").rglob("*"))
    assert cli.main(arguments) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
    assert sorted(p for p in (suite_copy / "cassettes").rglob("*")) == before
