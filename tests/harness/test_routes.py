"""Routes: recording through a rewriting relay is credited to the relay, never to the provider.

A small relay, started here on 127.0.0.1 in front of `toolcall serve`, does what gateways were
measured to do: it re-serialises every chunk, inserts `index: 0` into index-less calls, drops
usage and splits the finish off the last call chunk. Recording Gemini through it with `--accept`
must write those changes, and only those, into the route's profile in routes.yaml, keep that
file's comments, and leave providers.yaml byte for byte as it was.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from toolcall.harness import background, cli, serving
from toolcall.harness.checks import check_cell, check_recording, check_route_cell
from toolcall.harness.recording import accept, roundtrip
from toolcall.harness.reports import conformance as conformance_report
from toolcall.harness.suite.profiles import ProfileError, format_schema, load_routes, load_suite
from toolcall.harness.suite.recordings import discover

ROOT = Path(__file__).resolve().parents[2]
#: A routing header's value long enough to be a credential: it must never be written or printed.
SECRET_HEADER = "route-secret-0123456789abcdef"


def _rewrite(body: bytes) -> bytes:
    """The relay's rewrites of an SSE body, event by event."""
    out = []
    for event in body.decode("utf-8").split("\n\n"):
        if not event.startswith("data: ") or event == "data: [DONE]":
            if event.strip():
                out.append(event)
            continue
        chunk = json.loads(event.removeprefix("data: "))
        chunk.pop("usage", None)
        choices = chunk.get("choices") or []
        if not choices:
            continue
        choice = choices[0]
        choice.pop("usage", None)
        calls = (choice.get("delta") or {}).get("tool_calls") or []
        for call in calls:
            call.setdefault("index", 0)
        if calls and choice.get("finish_reason"):
            finish = {**chunk, "choices": [{**choice, "delta": {}}]}
            chunk["choices"] = [{**choice, "finish_reason": None}]
            out.append("data: " + json.dumps(chunk, separators=(",", ":")))
            out.append("data: " + json.dumps(finish, separators=(",", ":")))
            continue
        out.append("data: " + json.dumps(chunk, separators=(",", ":")))
    return ("\n\n".join(out) + "\n\n").encode("utf-8")


@contextmanager
def relay(upstream: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A rewriting relay in front of `upstream` (a base URL); yields its base URL and the
    requests it received (headers and body), and stops by itself."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append({"headers": dict(self.headers.items()), "body": json.loads(body)})
            with httpx.Client(timeout=10) as client:
                answer = client.post(
                    upstream + "/chat/completions",
                    content=body,
                    headers={"Content-Type": "application/json"},
                )
            data = _rewrite(answer.content)
            self.send_response(answer.status_code)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 5
    with background.running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen


def _pristine_litellm(root: Path) -> None:
    """The suite at `root` as a fresh clone has it for the `litellm` route: nothing recorded
    through it yet (a user's checkout, which the copy was made from, may hold recordings)."""
    doc = roundtrip.load(root / "routes.yaml")
    doc["routes"]["litellm"].pop("changes", None)
    roundtrip.save(root / "routes.yaml", doc, "test")
    for folder in (root / "cassettes").glob("*/routes/litellm"):
        shutil.rmtree(folder)


def _record(root: Path, *extra: str) -> int:
    base = ["--root", str(root), "record", "--provider", "gemini", "--scenario", "single_call"]
    return cli.main([*base, *extra])


def test_accept_through_a_relay_writes_only_the_routes_profile(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-key-for-the-local-relay")
    _pristine_litellm(suite_copy)
    providers_before = (suite_copy / "providers.yaml").read_bytes()
    with (
        serving.serving(load_suite(ROOT)) as upstream,
        relay(upstream.url("gemini")) as (url, seen),
    ):
        code = _record(
            suite_copy,
            *("--route", "litellm", "--base-url", url, "--model", "my-gemini-alias"),
            *(
                "--header",
                "x-portkey-provider: openai",
                "--header",
                f"x-route-key: {SECRET_HEADER}",
            ),
            "--accept",
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert (suite_copy / "providers.yaml").read_bytes() == providers_before

    # The relay got the headers and the alias; nothing shows the secret header's value.
    (request,) = seen
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["x-portkey-provider"] == "openai" and headers["x-route-key"] == SECRET_HEADER
    assert request["body"]["model"] == "my-gemini-alias"
    assert SECRET_HEADER not in out + err
    cassette = suite_copy / "cassettes" / "gemini" / "routes" / "litellm" / "single_call.yaml"
    text = cassette.read_text(encoding="utf-8")
    assert SECRET_HEADER not in text and "x-route-key" not in text
    assert "route: litellm" in text and "model: my-gemini-alias" in text

    # Exactly the relay's changes, each with the cassette as its evidence; comments kept.
    routes_text = (suite_copy / "routes.yaml").read_text(encoding="utf-8")
    assert routes_text.startswith("# Routes: how a provider's model is reached")
    suite = load_suite(suite_copy)
    route = suite.routes["litellm"]
    assert route.changes == {
        "gemini": {
            "index": "present",
            "finish_with_last_delta": False,
            "finish_reason_null": True,
            "usage": "none",
        }
    }
    assert {q: e["cassettes"] for q, e in route.change_evidence["gemini"].items()} == {
        key: ["single_call"] for key in route.changes["gemini"]
    }
    assert check_route_cell(suite, "gemini", "litellm", cassette).status == "pass"
    gemini = suite.providers["gemini"]
    assert check_cell(suite, gemini, gemini.cells["single_call"]).status == "pass"


def test_without_accept_the_routes_drift_is_reported_and_nothing_changes(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-key-for-the-local-relay")
    _pristine_litellm(suite_copy)
    before = {n: (suite_copy / n).read_bytes() for n in ("providers.yaml", "routes.yaml")}
    with serving.serving(load_suite(ROOT)) as upstream, relay(upstream.url("gemini")) as (url, _):
        code = _record(suite_copy, "--route", "litellm", "--base-url", url)
    out = capsys.readouterr().out
    assert code == 1
    assert "DRIFT gemini@litellm/single_call" in out
    assert "checked 1 provider(s) (gemini@litellm)" in out
    assert "routes:\n  litellm:\n    changes:\n" in out
    assert {n: (suite_copy / n).read_bytes() for n in before} == before


def test_a_foreign_base_url_without_a_route_is_refused(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-key-for-the-local-relay")
    before = _files(suite_copy)
    with relay("http://127.0.0.1:9/v1") as (url, seen):
        code = _record(suite_copy, "--base-url", url)
    err = capsys.readouterr().err
    assert code == 2 and seen == []
    assert "ROUTE=<name>" in err and "ROUTE=direct" in err and "litellm" in err
    assert _files(suite_copy) == before  # whatever the copied checkout held already


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_unknown_route_is_refused_naming_the_known_ones(
    suite_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _record(suite_copy, "--route", "no-such-route") == 2
    assert "unknown route 'no-such-route'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "        usage: {value: after_finish,",
            "        usage: {value: sometimes,",
            "changes.glm.usage",
        ),
        ("        arguments: {value: whole,", "        argument: {value: whole,", "not a quirk"),
        (
            "      kimi:\n        later_id:",
            "      kimmi:\n        later_id:",
            "'kimmi'] not a provider",
        ),
        ("    carries_to: baseten\n", "    carries_to: nowhere\n", "carries_to: 'nowhere'"),
    ],
)
def test_a_malformed_route_names_its_path(
    suite_copy: Path, old: str, new: str, message: str
) -> None:
    path = suite_copy / "routes.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ProfileError, match=message):
        load_suite(suite_copy)


@pytest.mark.slow
def test_reports_carry_the_route() -> None:
    suite = load_suite(ROOT)
    outcomes = [check_recording(suite, r) for r in discover(suite.cassettes, "kimi", wire="chat")]
    document = conformance_report.document(outcomes)
    Draft202012Validator(format_schema("reports.schema.json")).validate(document)
    routes = {o["route"] for o in document["outcomes"]}
    assert {"openrouter-baseten", "hf-router-groq", "openrouter-moonshotai"} <= routes
    text = conformance_report.text(outcomes)
    assert "\nkimi@openrouter-deepinfra " in text
    assert "| kimi@openrouter-groq |" in conformance_report.markdown(outcomes)


#: A routes.yaml as a fresh clone has it where it matters here: comments, and a gateway nothing
#: was recorded through yet followed by another route. Written here, since the checkout's may
#: hold a user's recordings.
PRISTINE_ROUTES = """# Routes: a comment that must survive.

version: 1

routes:

  direct:
    kind: direct
    name: the vendor's own API
    description: The provider's base_url in providers.yaml.

  # -- gateways --
  litellm:
    kind: gateway
    name: LiteLLM proxy
    description: >-
      LiteLLM's proxy server; its base URL is your installation's.

  portkey:
    kind: gateway
    name: Portkey gateway
    description: Portkey's open-source gateway.
"""


def test_accepting_and_withdrawing_a_change_gives_routes_yaml_back(tmp_path: Path) -> None:
    """A change block lands inside its route, the blank line before the next route kept, and
    removing it again restores the file byte for byte (comments and all)."""
    path = tmp_path / "routes.yaml"
    original = PRISTINE_ROUTES.encode()
    path.write_bytes(original)
    entry = {"value": "present", "evidence": "recorded", "cassettes": ["single_call"]}
    accept.apply_routes(path, [accept.RouteChange("litellm", {"gemini": {"index": entry}})])
    text = path.read_text(encoding="utf-8")
    assert (
        "    changes:\n      gemini:\n        index: {value: present, evidence: recorded, "
        "cassettes: [single_call]}\n\n  portkey:\n"
    ) in text
    assert load_routes(tmp_path)["litellm"].changes == {"gemini": {"index": "present"}}
    accept.apply_routes(path, [accept.RouteChange("litellm", {"gemini": {"index": None}})])
    assert path.read_bytes() == original


@pytest.mark.slow
def test_each_provider_keeps_its_own_changes_through_a_route(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a route changes differs by provider (the relay adds `index` only where Gemini left
    it out): accepting Kimi through the relay after Gemini keeps Gemini's changes, every cell
    through the route passes for both, and a later `SCENARIO=` run of Gemini leaves what its
    other cassettes showed."""
    _pristine_litellm(suite_copy)
    suite = load_suite(ROOT)
    for provider in ("gemini", "kimi"):
        monkeypatch.setenv(suite.providers[provider].key_env, "dummy-key-for-the-local-relay")

    def record(provider: str, *extra: str) -> None:
        with relay(upstream.url(provider)) as (url, _seen):
            arguments = ["--provider", provider, "--route", "litellm", "--base-url", url]
            code = cli.main(["--root", str(suite_copy), "record", *arguments, *extra, "--accept"])
        out, err = capsys.readouterr()
        assert code == 0, out + err

    with serving.serving(suite) as upstream:
        record("gemini")
        gemini = load_suite(suite_copy).routes["litellm"].change_evidence["gemini"]
        assert gemini["index"]["value"] == "present"
        record("kimi")
        record("gemini", "--scenario", "single_call")
    after = load_suite(suite_copy)
    route = after.routes["litellm"]
    assert route.change_evidence["gemini"] == gemini
    assert "index" not in route.changes["kimi"]  # Kimi's calls carry their index already
    cells = sorted((suite_copy / "cassettes").glob("*/routes/litellm/*.yaml"))
    assert {path.parts[-4] for path in cells} == {"gemini", "kimi"}
    for path in cells:
        outcome = check_route_cell(after, path.parts[-4], "litellm", path)
        assert outcome.status == "pass", outcome.report()
