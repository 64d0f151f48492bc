"""The recording path, end to end, against a real HTTP server on 127.0.0.1 that plays a provider.

The server streams a provider's body in many small chunked writes, sets secret-looking response
headers, and can misbehave (error statuses, a stream cut off, a changed wire shape, silence).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from tests.helpers import stream_edit
from toolcall.harness import background, cli
from toolcall.harness.checks import check_cell
from toolcall.harness.recording import accept, secrets
from toolcall.harness.recording.record import RecordError, RecordOptions, model_problem, record_cell
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[2]

FAKE_KEY = "sk-loopback-" + "Q7f2" * 10
ORG = "org-Zx81LoopbackOrganisation"


@dataclass
class Behaviour:
    """What the fake provider does with the next requests (one status per request, then 200)."""

    body: bytes = b""
    statuses: list[int] = field(default_factory=list)
    cut_at: int | None = None
    delay: float = 0.0
    error_body: bytes | None = None
    #: after the body, keep the stream open forever, writing this every `every` seconds
    forever: bytes = b""
    every: float = 0.0
    requests: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        behaviour = self.server.behaviour
        self.rfile.read(int(self.headers.get("content-length", "0")))
        behaviour.requests.append(dict(self.headers))
        behaviour.paths.append(self.path)
        status = behaviour.statuses.pop(0) if behaviour.statuses else 200
        if behaviour.delay:
            time.sleep(behaviour.delay)
        if status != 200:
            message = {"error": {"message": f"echo {FAKE_KEY}", "code": status}}
            error = behaviour.error_body or json.dumps(message).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(error)))
            self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(error)
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
        while behaviour.forever:
            piece = behaviour.forever
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            time.sleep(behaviour.every)
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
    with background.running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.behaviour


def _body_of(root: Path, provider: str, scenario: str) -> bytes:
    path = cassettes.cassette_path(root / "cassettes", provider, scenario)
    return cassettes.response_body(cassettes.load(path))


def _options(url: str, key_env: str, **kw: object) -> RecordOptions:
    return RecordOptions(
        base_url=url,
        route="direct",  # the fake server plays the provider itself
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
    declared = provider.cells["parallel_calls"].provenance["kind"]  # a user may have recorded it
    if declared != "recorded":
        assert [(f.check, f.declared) for f in outcome.findings] == [("provenance", declared)]
        assert "make record PROVIDER=openai SCENARIO=parallel_calls ACCEPT=1" in outcome.reason
    else:
        assert outcome.findings == []
    accept.apply(suite_copy / "providers.yaml", [accept.plan(suite, provider, [recorded])])
    accepted = load_suite(suite_copy)
    cell = accepted.providers["openai"].cells["parallel_calls"]
    assert cell.provenance["kind"] == "recorded"
    outcome = check_cell(accepted, accepted.providers["openai"], cell)
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
    code = cli.main([*argv, "--base-url", url, "--route", "direct"])
    out = capsys.readouterr().out
    assert code == 1
    assert "DRIFT grok/single_call" in out
    assert "quirks.arguments: declared 'whole', observed 'incremental'" in out
    printed = yaml.safe_load(out[out.index("providers:\n") : out.index("checked ")])
    override = printed["providers"]["grok"]["scenarios"]["single_call"]["quirks"]["arguments"]
    assert override == {
        "value": "incremental",
        "evidence": "recorded",
        "cassettes": ["single_call"],
    }


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
        record_cell(suite, provider, cell, RecordOptions(base_url=url, route="direct", environ={}))
    assert len(behaviour.requests) == asked


def test_a_key_a_header_cannot_carry_is_a_clear_error(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "glm", "single_call")
    suite = load_suite(suite_copy)
    provider = suite.providers["glm"]
    for key in ("sk-\u201cpasted\u201d-0123456789abcdef", "sk-0123456789abcdef\n"):
        options = RecordOptions(base_url=url, environ={provider.key_env: key})
        with pytest.raises(RecordError) as refused:
            record_cell(suite, provider, provider.cells["single_call"], options)
        assert f"glm/single_call: {provider.key_env} holds non-ASCII" in str(refused.value)
        assert key not in str(refused.value)
    assert behaviour.requests == []


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("x-route", "ключ-0123456789abcdef", "the header 'x-route'"),
        ("x-route", "token\r\nx-injected: 1", "the header 'x-route'"),
        ("x route", "v-0123456789", "the header whose name"),
        ("x-ключ", "v-0123456789", "the header whose name"),
    ],
)
def test_a_header_an_http_request_cannot_carry_is_a_clear_error(
    suite_copy: Path, fake_provider: tuple[str, Behaviour], name: str, value: str, said: str
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "glm", "single_call")
    suite = load_suite(suite_copy)
    provider = suite.providers["glm"]
    options = _options(url, provider.key_env, headers=[(name, value)])
    with pytest.raises(RecordError) as refused:
        record_cell(suite, provider, provider.cells["single_call"], options)
    assert str(refused.value).startswith(f"glm/single_call: {said}"), refused.value
    assert value not in str(refused.value)
    assert behaviour.requests == []


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:abc/v1", "http://a[b]/v1", "http:///v1"])
def test_a_base_url_that_cannot_be_reached_is_a_clear_error(
    suite_copy: Path,
    base_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ZHIPUAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("TOOLCALL_GLM_BASE_URL", base_url)
    args = ["--root", str(suite_copy), "record", "--provider", "glm", "--scenario", "single_call"]
    assert cli.main(args) == 2  # refused before anything is sent, like any other bad choice
    err = capsys.readouterr().err
    assert "toolcall: glm: the base URL from TOOLCALL_GLM_BASE_URL is not usable: " in err
    assert "Traceback" not in err


def test_drift_run_skips_providers_without_keys(
    suite_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for provider in load_suite(suite_copy).providers.values():
        monkeypatch.delenv(provider.key_env, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code = cli.main(["--root", str(suite_copy), "record", "--skip-missing-keys"])
    out = capsys.readouterr().out
    assert code == 0
    assert "skip openai: OPENAI_API_KEY is not set" in out
    assert "n/a  openai/reasoning_then_call: OpenAI chat completions" in out
    assert "0 failed, 0 drifted" not in out
    assert "WARNING: checked 0 providers (no keys set: OPENAI_API_KEY, " in out
    assert "\n::warning title=toolcall record::checked 0 providers (no keys set" in out


def test_recording_only_a_not_applicable_cell_is_not_a_success(
    suite_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--root", str(suite_copy), "record", "--provider", "openai"]
    code = cli.main([*args, "--scenario", "reasoning_then_call"])
    out = capsys.readouterr().out
    assert code == 2
    assert "n/a  openai/reasoning_then_call: OpenAI chat completions" in out
    assert "WARNING: checked 0 providers (every selected cell is n/a)" in out


def test_scanner_finds_each_kind_of_secret(tmp_path: Path) -> None:
    # Built at run time, so that no test source looks like it holds a key.
    uuid = "3f0c" + "9a1e-52bd-4c8e-9d71-0a6e5b2c8f14"
    samples = {
        "openai-key": "sk-proj-" + "a1B2" * 8,
        "xai-key": "xai-" + "Zz09" * 8,
        "google-key": "AIza" + "Sy" * 18,
        "google-oauth-token": "ya29." + "a0AfH6SM" * 4,
        "groq-key": "gsk_" + "Q7f2" * 12,
        "zhipu-key": "0123456789abcdef" * 2 + "." + "AbCdEfGh12345678",
        "bearer-token": "Authorization: Bearer abcdefghijklmnop1234",
        "basic-credentials": "Authorization: Basic " + "dXNlcjpQYXNzd29yZA==",
        "url-credentials": "uri: https://someone:" + "hunter2@example.com/v1",
        "assigned-credential": '{"api_key": "' + uuid + '"}',
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU",
    }
    for kind, value in samples.items():
        path = tmp_path / f"{kind}.yaml"
        path.write_text(f"body: |\n  {value}\n", encoding="utf-8")
        assert kind in [hit.kind for hit in secrets.scan([path])], kind
    for variant in ("bearer", "BEARER"):
        path = tmp_path / f"{variant}.yaml"
        path.write_text(f"x: {variant} abcdefghijklmnop1234\n", encoding="utf-8")
        assert [hit.kind for hit in secrets.scan([path])] == ["bearer-token"]
    escaped = tmp_path / "escaped.yaml"
    escaped.write_text('data: {"content":"sk\\u002dproj' + "-a1B2" * 8 + '"}\n', encoding="utf-8")
    assert [hit.kind for hit in secrets.scan([escaped])] == ["openai-key"]
    plain = tmp_path / "plain.yaml"
    plain.write_text(
        "a value: my-own-key-value-42\nBearer <API_KEY>\nBasic information about it\n"
        f'"id": "{uuid}"\n',
        encoding="utf-8",
    )
    assert secrets.scan([plain]) == []
    assert [h.kind for h in secrets.scan([plain], ["my-own-key-value-42"])] == [
        "configured key value"
    ]
    assert secrets.scan([plain], ["value"]) == [], "a short dummy key is not a credential"


def test_committed_cassettes_hold_no_secrets() -> None:
    root = Path(__file__).resolve().parents[2]
    variables = [p.key_env for p in load_suite(root).providers.values()]
    hits = secrets.scan([root / "cassettes"], secrets.key_values(variables))
    assert hits == [], "\n".join(map(str, hits))


@pytest.mark.slow
def test_scan_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    assert cli.main(["--root", str(root), "scan"]) == 0
    leaky = tmp_path / "leaky.yaml"
    leaky.write_text("authorization: Bearer abcdefghijklmnopqrstuvwx\n", encoding="utf-8")
    assert cli.main(["--root", str(root), "scan", str(leaky)]) == 1
    out = capsys.readouterr().out
    assert f"{leaky}:1: looks like a secret (bearer-token)" in out
    assert "abcdefghijklmnop" not in out


# -- scrubbing by structure --------------------------------------------------------------------


def _text_only(content: str) -> bytes:
    """A minimal text turn whose content carries `content` (JSON-encoded by the caller)."""
    opening = '{"choices":[{"index":0,"delta":{"role":"assistant","content":CONTENT},'
    events = [
        opening.replace("CONTENT", content) + '"finish_reason":null}]}',
        '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        "[DONE]",
    ]
    return "".join(f"data: {event}\n\n" for event in events).encode("utf-8")


@pytest.mark.parametrize("key", ["anything", "the", "weather", "celsius"])
def test_a_dummy_key_that_is_a_word_never_alters_the_cassette(
    suite_copy: Path, fake_provider: tuple[str, Behaviour], key: str
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "deepseek", "single_call")
    suite = load_suite(suite_copy)
    provider = suite.providers["deepseek"]
    cell = provider.cells["single_call"]
    options = RecordOptions(
        base_url=url, route="direct", environ={provider.key_env: key}, sleep=lambda _s: None
    )
    recorded = record_cell(suite, provider, cell, options)
    interaction = cassettes.load(recorded.path)["interactions"][0]
    assert json.loads(interaction["request"]["body"]) == suite.request_body(provider, cell)
    assert cassettes.response_body(cassettes.load(recorded.path)) == behaviour.body
    hits = secrets.scan(
        [recorded.path], secrets.key_values([provider.key_env], {provider.key_env: key})
    )
    assert hits == []


@pytest.mark.slow
@pytest.mark.parametrize("status", [401, 429, 500])
def test_a_key_straddling_the_cut_of_an_error_body_is_never_printed(
    suite_copy: Path, fake_provider: tuple[str, Behaviour], status: int
) -> None:
    url, behaviour = fake_provider
    for offset in (290, 295, 299):
        behaviour.error_body = b"x" * offset + FAKE_KEY.encode() + b" trailing text"
        behaviour.statuses = [status] * 3
        suite = load_suite(suite_copy)
        provider = suite.providers["openai"]
        with pytest.raises(RecordError, match=f"HTTP {status}") as caught:
            record_cell(
                suite, provider, provider.cells["single_call"], _options(url, "OPENAI_API_KEY")
            )
        assert FAKE_KEY[:4] not in str(caught.value), offset


def test_a_key_echoed_json_escaped_is_redacted(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    escaped = "".join(f"\\u{ord(c):04x}" if c == "-" else c for c in FAKE_KEY)
    behaviour.body = _text_only(json.dumps(f"your key: {FAKE_KEY} ")[:-1] + escaped + '"')
    assert b"\\u002d" in behaviour.body
    suite = load_suite(suite_copy)
    provider = suite.providers["openai"]
    recorded = record_cell(
        suite, provider, provider.cells["text_only"], _options(url, provider.key_env)
    )
    body = cassettes.response_body(cassettes.load(recorded.path)).decode("utf-8")
    assert "your key: <API_KEY> <API_KEY>" in body
    assert secrets.scan([recorded.path], [FAKE_KEY]) == []


def test_credentials_in_the_base_url_never_reach_the_cassette(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "qwen", "single_call")
    password, token = "pa55" + "word-Loopback", "tok" + "-Loopback-0123456789"
    host = url.removeprefix("http://").removesuffix("/v1")
    base = f"http://user:{password}@{host}/v1?apiKey={token}&api-version=2024-06-01&token={token}"
    suite = load_suite(suite_copy)
    provider = suite.providers["qwen"]
    options = RecordOptions(base_url=base, route="direct", environ={provider.key_env: FAKE_KEY})
    recorded = record_cell(suite, provider, provider.cells["single_call"], options)
    assert behaviour.paths[0].startswith("/v1/chat/completions?")
    text = recorded.path.read_text(encoding="utf-8")
    for secret in (password, token, "user:"):
        assert secret not in text
    cassette = cassettes.load(recorded.path)
    clean = f"http://{host}/v1?apiKey=<REDACTED>&api-version=2024-06-01&token=<REDACTED>"
    assert cassette["metadata"]["provenance"]["base_url"] == clean
    assert cassette["interactions"][0]["request"]["uri"] == clean.replace(
        "/v1?", "/v1/chat/completions?"
    )


def test_a_raw_next_line_inside_a_json_string_records_and_replays(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _text_only('"one\u0085two"'.replace("\\u0085", "\x85"))
    assert "\x85".encode() in behaviour.body
    suite = load_suite(suite_copy)
    provider = suite.providers["openai"]
    recorded = record_cell(
        suite, provider, provider.cells["text_only"], _options(url, provider.key_env)
    )
    assert cassettes.response_body(cassettes.load(recorded.path)) == behaviour.body


def test_a_cassette_that_would_read_back_differently_is_not_written(
    suite_copy: Path, fake_provider: tuple[str, Behaviour], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "qwen", "single_call")
    real_dump = cassettes.dump
    monkeypatch.setattr(cassettes, "dump", lambda data: real_dump(data).replace("Lisbon", "Lisboa"))
    suite = load_suite(suite_copy)
    provider = suite.providers["qwen"]
    path = cassettes.cassette_path(suite.cassettes, "qwen", "single_call")
    before = path.read_bytes()
    with pytest.raises(RecordError, match="qwen/single_call: the written cassette"):
        record_cell(suite, provider, provider.cells["single_call"], _options(url, provider.key_env))
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(
        p.name for p in (ROOT / "cassettes" / "qwen").iterdir()
    )


# -- bounds --------------------------------------------------------------------------------------


def test_a_stream_that_never_ends_is_cut_at_the_size_cap(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = b'data: {"choices":[]}\n\n'
    behaviour.forever = b'data: {"choices":[{"index":0,"delta":{"content":"la"}}]}\n\n' * 50
    suite = load_suite(suite_copy)
    provider = suite.providers["openai"]
    options = _options(url, provider.key_env, max_bytes=64 * 1024)
    with pytest.raises(RecordError, match="passed 65536 bytes"):
        record_cell(suite, provider, provider.cells["text_only"], options)
    behaviour.forever = b""


def test_keep_alives_forever_meet_the_total_deadline(
    suite_copy: Path, fake_provider: tuple[str, Behaviour]
) -> None:
    url, behaviour = fake_provider
    behaviour.body = b": keep-alive\n\n"
    behaviour.forever, behaviour.every = b": keep-alive\n\n", 0.05
    suite = load_suite(suite_copy)
    provider = suite.providers["openai"]
    options = _options(url, provider.key_env, timeout=5.0, deadline=0.5)
    with pytest.raises(RecordError, match=r"did not end within the 0\.5s deadline"):
        record_cell(suite, provider, provider.cells["text_only"], options)
    behaviour.forever = b""


# -- the turn must be the scenario's ------------------------------------------------------------


@pytest.mark.parametrize(
    ("served", "declared", "observed"),
    [
        ("rename", "{'const': 'get_weather'}", "'get_time'"),
        ("single_call", "{'minItems': 2}", "'1 item(s)'"),
    ],
)
def test_a_turn_that_is_not_the_scenarios_is_not_written(
    suite_copy: Path,
    fake_provider: tuple[str, Behaviour],
    served: str,
    declared: str,
    observed: str,
) -> None:
    url, behaviour = fake_provider
    parallel = _body_of(suite_copy, "deepseek", "parallel_calls")
    if served == "rename":
        behaviour.body = parallel.replace(b'"name":"get_weather"', b'"name":"get_time"')
    else:
        behaviour.body = _body_of(suite_copy, "deepseek", "single_call")
    suite = load_suite(suite_copy)
    provider = suite.providers["deepseek"]
    path = cassettes.cassette_path(suite.cassettes, "deepseek", "parallel_calls")
    before = path.read_bytes()
    with pytest.raises(RecordError, match=r"parallel_calls\.expect, nothing written") as caught:
        record_cell(
            suite, provider, provider.cells["parallel_calls"], _options(url, provider.key_env)
        )
    assert f"declared {declared}, observed {observed}" in str(caught.value)
    assert path.read_bytes() == before


def test_conformance_puts_the_observation_on_the_observed_side(suite_copy: Path) -> None:
    path = cassettes.cassette_path(suite_copy / "cassettes", "deepseek", "single_call")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"name":"get_weather"', '"name":"get_time"'), encoding="utf-8")
    suite = load_suite(suite_copy)
    provider = suite.providers["deepseek"]
    outcome = check_cell(suite, provider, provider.cells["single_call"])
    expect = [f for f in outcome.findings if f.check == "expect"]
    assert [(f.path, f.declared, f.observed) for f in expect] == [
        ("$.tool_calls[0].function.name", {"const": "get_weather"}, "get_time")
    ]


def _tree(root: Path) -> dict[str, bytes]:
    """Every file of the suite's committed data under `root`, by path."""
    files = [root / n for n in ("providers.yaml", "routes.yaml", "scenarios.yaml")]
    files += sorted((root / "cassettes").rglob("*"))
    return {str(p.relative_to(root)): p.read_bytes() for p in files if p.is_file()}


def test_without_accept_nothing_committed_changes(
    suite_copy: Path,
    fake_provider: tuple[str, Behaviour],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`make record` without ACCEPT only looks: the new cassette goes out of the checkout's
    tracked files (reports/pending/), the change is printed, and cassettes/ stays as it was."""
    url, behaviour = fake_provider
    whole = _body_of(suite_copy, "grok", "single_call").decode()
    behaviour.body = stream_edit.edit_chunks(whole, stream_edit.split_whole_calls).encode()
    monkeypatch.setenv("XAI_API_KEY", FAKE_KEY)
    before = _tree(suite_copy)
    argv = ["--root", str(suite_copy), "record", "--provider", "grok", "--scenario", "single_call"]
    assert cli.main([*argv, "--base-url", url, "--route", "direct"]) == 1
    out = capsys.readouterr().out
    assert _tree(suite_copy) == before
    pending = suite_copy / "reports" / "pending" / "cassettes" / "grok" / "single_call.yaml"
    assert cassettes.response_body(cassettes.load(pending)) == behaviour.body
    assert "nothing committed changed: the cassettes are under reports/pending/cassettes/" in out
    assert "quirks.arguments: declared 'whole', observed 'incremental'" in out


@pytest.mark.parametrize("accepting", [False, True], ids=["looking", "accepting"])
def test_another_models_stream_is_flagged_before_anything_is_accepted(
    suite_copy: Path,
    fake_provider: tuple[str, Behaviour],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    accepting: bool,
) -> None:
    """A base URL with a typo served GLM's stream for Gemini: the stream names `glm-4.7`, which
    is neither the model asked for nor the declared one. Looking, it is a MODEL failure line;
    accepting, the cell is refused before its cassette or the profile is written."""
    url, behaviour = fake_provider
    behaviour.body = _body_of(suite_copy, "glm", "parallel_calls")
    monkeypatch.setenv("GEMINI_API_KEY", FAKE_KEY)
    before = _tree(suite_copy)
    argv = ["--root", str(suite_copy), "record", "--provider", "gemini"]
    argv += ["--scenario", "parallel_calls", "--base-url", url, "--route", "direct"]
    code = cli.main([*argv, *(["--accept"] if accepting else [])])
    out, err = capsys.readouterr()
    assert code == 1 and _tree(suite_copy) == before
    message = "the stream answers as model 'glm-4.7', neither the requested 'gemini-2.5-flash'"
    if accepting:
        assert message in err and "nothing written" in err
        assert "accepted" not in out
    else:
        assert f"MODEL gemini/parallel_calls: {message}" in out


@pytest.mark.parametrize(
    ("answered", "requested", "declared", "flagged"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o", "gpt-4o", False),  # a dated snapshot of the model
        ("models/gemini-2.5-flash", "gemini-2.5-flash", "gemini-2.5-flash", False),
        ("gemini-2.5-flash", "my-gemini-alias", "gemini-2.5-flash", False),  # a gateway's alias
        ("my-gemini-alias", "my-gemini-alias", "gemini-2.5-flash", False),
        ("qwen2.5-coder:7b", "qwen2.5-coder", "qwen3-max", False),  # a server's tag
        ("glm-4.7", "gemini-2.5-flash", "gemini-2.5-flash", True),
        ("gpt-4o-mini", "gpt-4o", "gpt-4o", True),  # another model, not a snapshot of this one
    ],
)
def test_the_models_a_stream_may_answer_as(
    answered: str, requested: str, declared: str, flagged: bool
) -> None:
    body = ('data: {"model": "' + answered + '", "choices": []}\n\ndata: [DONE]\n\n').encode()
    assert (model_problem(body, requested, declared) is not None) is flagged
