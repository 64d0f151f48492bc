"""The recording path, end to end, against a real HTTP server on 127.0.0.1 that plays a provider.

The server streams a provider's body in many small chunked writes, sets secret-looking response
headers, and can misbehave (error statuses, a stream cut off, a changed wire shape, silence).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests import stream_edit
from toolcall.harness import cassettes, cli, secrets
from toolcall.harness.checks import check_cell
from toolcall.harness.profiles import load_suite
from toolcall.harness.record import RecordError, RecordOptions, record_cell

FAKE_KEY = "sk-loopback-" + "Q7f2" * 10
ORG = "org-Zx81LoopbackOrganisation"


@dataclass
class Behaviour:
    """What the fake provider does with the next requests (one status per request, then 200)."""

    body: bytes = b""
    statuses: list[int] = field(default_factory=list)
    cut_at: int | None = None
    delay: float = 0.0
    requests: list[dict[str, str]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        behaviour = self.server.behaviour
        self.rfile.read(int(self.headers.get("content-length", "0")))
        behaviour.requests.append(dict(self.headers))
        status = behaviour.statuses.pop(0) if behaviour.statuses else 200
        if behaviour.delay:
            time.sleep(behaviour.delay)
        if status != 200:
            error = json.dumps({"error": {"message": f"echo {FAKE_KEY}", "code": status}})
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(error)))
            self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(error.encode())
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("set-cookie", "__cf_bm=LoopbackCookieValue123456; path=/")
        self.send_header("openai-organization", ORG)
        self.send_header("x-request-id", "req_loopback_0001")
        self.send_header("x-echo-authorization", self.headers.get("authorization", ""))
        self.end_headers()
        body = behaviour.body if behaviour.cut_at is None else behaviour.body[: behaviour.cut_at]
        for start in range(0, len(body), 23):
            piece = body[start : start + 23]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        if behaviour.cut_at is None:
            self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    behaviour: Behaviour

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that gave up (the timeout test) breaks the pipe; that is the point."""


@pytest.fixture
def fake_provider() -> Iterator[tuple[str, Behaviour]]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.behaviour = Behaviour()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.behaviour
    finally:
        server.shutdown()
        server.server_close()


def _body_of(root: Path, provider: str, scenario: str) -> bytes:
    path = cassettes.cassette_path(root / "cassettes", provider, scenario)
    return cassettes.response_body(cassettes.load(path))


def _options(url: str, key_env: str, **kw: object) -> RecordOptions:
    return RecordOptions(
        base_url=url,
        environ={key_env: FAKE_KEY},
        sleep=lambda _s: None,
        **kw,  # type: ignore[arg-type]
    )


def test_recorded_cassette_is_scrubbed_and_passes_conformance(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "openai", "parallel_calls")
    suite = load_suite(suite_copy)
    provider = suite.providers["openai"]
    path = cassettes.cassette_path(suite.cassettes, "openai", "parallel_calls")
    path.unlink()

    recorded = record_cell(
        suite, provider, provider.cells["parallel_calls"], _options(url, provider.key_env)
    )

    assert recorded.path == path and recorded.drift == []
    assert behaviour.requests[0]["Authorization"] == f"Bearer {FAKE_KEY}"
    text = path.read_text(encoding="utf-8")
    for secret in (FAKE_KEY, ORG, "__cf_bm", "req_loopback", "Bearer", "authorization"):
        assert secret not in text
    assert secrets.scan([path], [FAKE_KEY]) == []
    provenance = cassettes.load(path)["metadata"]["provenance"]
    assert provenance["kind"] == "recorded" and provenance["base_url"] == url
    assert set(provenance["versions"]) == {"toolcall", "httpx", "vcrpy", "python"}
    outcome = check_cell(load_suite(suite_copy), provider, provider.cells["parallel_calls"])
    assert outcome.status == "pass", outcome.report()
    assert outcome.note.startswith("recorded ")


def test_changed_wire_shape_is_drift_with_the_yaml_to_accept_it(
    suite_copy: Path,
    fake_provider: tuple[str, Behaviour],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url, behaviour = fake_provider
    whole = _body_of(suite_copy, "grok", "single_call").decode()
    behaviour.body = stream_edit.edit_chunks(whole, stream_edit.split_whole_calls).encode()
    monkeypatch.setenv("XAI_API_KEY", FAKE_KEY)
    argv = ["--root", str(suite_copy), "record", "--provider", "grok", "--scenario", "single_call"]
    code = cli.main([*argv, "--base-url", url])
    out = capsys.readouterr().out
    assert code == 1
    assert "DRIFT grok/single_call" in out
    assert "quirks.arguments: declared 'whole', observed 'incremental'" in out
    assert "      single_call:\n" in out and 'arguments: "incremental"' in out
    assert "fingerprint: arguments='incremental'" in out


@pytest.mark.parametrize(
    ("statuses", "cut_at", "message"),
    [
        ([401], None, "HTTP 401: the key was refused"),
        ([403], None, "HTTP 403"),
        ([500, 502, 503], None, "HTTP 503 after 3 attempt(s)"),
        ([429, 429, 429], None, "HTTP 429 after 3 attempt(s)"),
        ([], 200, "nothing written"),
    ],
)
def test_failures_leave_the_old_cassette_untouched(
    suite_copy: Path,
    fake_provider: tuple[str, Behaviour],
    statuses: list[int],
    cut_at: int | None,
    message: str,
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "deepseek", "single_call")
    behaviour.statuses = list(statuses)
    behaviour.cut_at = cut_at
    suite = load_suite(suite_copy)
    provider = suite.providers["deepseek"]
    path = cassettes.cassette_path(suite.cassettes, "deepseek", "single_call")
    before = path.read_bytes()
    with pytest.raises(RecordError, match="deepseek/single_call") as caught:
        record_cell(suite, provider, provider.cells["single_call"], _options(url, provider.key_env))
    assert message in str(caught.value)
    assert FAKE_KEY not in str(caught.value)
    assert path.read_bytes() == before
    assert not list(path.parent.glob(".*.tmp"))


def test_a_stream_cut_at_an_event_boundary_is_refused(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    body = _body_of(suite_copy, "deepseek", "long_arguments")
    behaviour.body = body[: body.index(b"\n\n", len(body) // 2) + 2]
    suite = load_suite(suite_copy)
    provider = suite.providers["deepseek"]
    path = cassettes.cassette_path(suite.cassettes, "deepseek", "long_arguments")
    before = path.read_bytes()
    with pytest.raises(RecordError, match="not a complete turn"):
        record_cell(
            suite, provider, provider.cells["long_arguments"], _options(url, provider.key_env)
        )
    assert path.read_bytes() == before


def test_retry_then_success_writes(suite_copy: Path, fake_provider: tuple[str, Behaviour]) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "qwen", "single_call")
    behaviour.statuses = [429, 503]
    suite = load_suite(suite_copy)
    provider = suite.providers["qwen"]
    recorded = record_cell(
        suite, provider, provider.cells["single_call"], _options(url, provider.key_env)
    )
    assert len(behaviour.requests) == 3
    assert cassettes.response_body(cassettes.load(recorded.path)) == behaviour.body


def test_timeout_and_missing_key(suite_copy: Path, fake_provider: tuple[str, Behaviour]) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "glm", "single_call")
    behaviour.delay = 2.0
    suite = load_suite(suite_copy)
    provider = suite.providers["glm"]
    cell = provider.cells["single_call"]
    with pytest.raises(RecordError, match="glm/single_call: timed out"):
        record_cell(suite, provider, cell, _options(url, provider.key_env, timeout=0.3))
    asked = len(behaviour.requests)
    with pytest.raises(RecordError, match=f"set {provider.key_env}"):
        record_cell(suite, provider, cell, RecordOptions(base_url=url, environ={}))
    assert len(behaviour.requests) == asked


def test_drift_run_skips_providers_without_keys(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for provider in load_suite(suite_copy).providers.values():
        monkeypatch.delenv(provider.key_env, raising=False)
    code = cli.main(["--root", str(suite_copy), "record", "--skip-missing-keys"])
    out = capsys.readouterr().out
    assert code == 0
    assert "skip openai/single_call: OPENAI_API_KEY is not set" in out
    assert "0 failed, 0 drifted" in out


def test_scanner_finds_each_kind_of_secret(tmp_path: Path) -> None:
    samples = {
        "openai-key": "sk-proj-" + "a1B2" * 8,
        "xai-key": "xai-" + "Zz09" * 8,
        "google-key": "AIza" + "Sy" * 18,
        "bearer-token": "Authorization: Bearer abcdefghijklmnop1234",
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU",
    }
    for kind, value in samples.items():
        path = tmp_path / f"{kind}.yaml"
        path.write_text(f"body: |\n  {value}\n", encoding="utf-8")
        assert [hit.kind for hit in secrets.scan([path])] == [kind]
    plain = tmp_path / "plain.yaml"
    plain.write_text("a value: my-own-key-value-42\nBearer <API_KEY>\n", encoding="utf-8")
    assert secrets.scan([plain]) == []
    assert [h.kind for h in secrets.scan([plain], ["my-own-key-value-42"])] == [
        "configured key value"
    ]


def test_committed_cassettes_hold_no_secrets() -> None:
    root = Path(__file__).resolve().parents[1]
    variables = [p.key_env for p in load_suite(root).providers.values()]
    hits = secrets.scan([root / "cassettes"], secrets.key_values(variables))
    assert hits == [], "\n".join(map(str, hits))


def test_scan_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[1]
    assert cli.main(["--root", str(root), "scan"]) == 0
    leaky = tmp_path / "leaky.yaml"
    leaky.write_text("authorization: Bearer abcdefghijklmnopqrstuvwx\n", encoding="utf-8")
    assert cli.main(["--root", str(root), "scan", str(leaky)]) == 1
    out = capsys.readouterr().out
    assert f"{leaky}:1: looks like a secret (bearer-token)" in out
    assert "abcdefghijklmnop" not in out
