"""`toolcall serve` against hostile or broken clients: every request gets an answer in the
OpenAI error shape, nothing outside the suite is served, and no client holds the server."""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall.harness import cli, serving
from toolcall.harness.serving import input as serve_input
from toolcall.harness.suite import cassettes, recordings
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)
SCENARIO = {"model": "any", "stream": True, **SUITE.scenarios["single_call"].request}


@pytest.fixture(scope="module")
def server() -> Iterator[serving.Running]:
    with serving.serving(SUITE) as running:
        yield running


def address(running: serving.Running) -> tuple[str, int]:
    host, port = running.server.server_address[:2]
    return str(host), int(port)


def exchange(running: serving.Running, raw: bytes) -> http.client.HTTPResponse:
    """Send `raw` as it is and read one response (a real client would refuse to send most
    of these requests)."""
    sock = socket.create_connection(address(running), timeout=10)
    sock.sendall(raw)
    response = http.client.HTTPResponse(sock)
    response.begin()
    response.read()
    sock.close()
    return response


def request(
    path: str, body: bytes, *headers: str, host: str = "127.0.0.1", method: str = "POST"
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *headers, "", ""]
    return "\r\n".join(lines).encode() + body


def post_json(body: bytes, *headers: str) -> bytes:
    return request("/openai/v1/chat/completions", body, f"Content-Length: {len(body)}", *headers)


def error_of(running: serving.Running, raw: bytes) -> tuple[int, dict[str, str]]:
    sock = socket.create_connection(address(running), timeout=10)
    sock.sendall(raw)
    response = http.client.HTTPResponse(sock)
    response.begin()
    document = json.loads(response.read())
    sock.close()
    assert set(document["error"]) == {"message", "type", "code"}, document
    return response.status, document["error"]


# --- nothing outside the suite ------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "published/../../openai/single_call",  # an existing cassette outside published/
        "published/../../../providers",
        "published//etc/passwd",
    ],
)
def test_a_recording_name_is_only_a_recording_that_exists(
    server: serving.Running, name: str
) -> None:
    by_header = httpx.post(
        server.url("qwen") + "/chat/completions",
        json={"stream": True},
        headers={"X-Toolcall-Scenario": name},
    )
    assert by_header.status_code == 404
    assert "no published recording" in by_header.json()["error"]["message"]
    encoded = name.split("/", 1)[1].replace("/", "%2F")
    by_path = httpx.post(
        f"{server.base_url}/qwen/published/{encoded}/v1/chat/completions", json={"stream": True}
    )
    assert by_path.status_code == 404


def test_no_existence_oracle(server: serving.Running) -> None:
    def answer(name: str) -> tuple[int, str]:
        response = httpx.post(
            server.url("qwen") + "/chat/completions",
            json={"stream": True},
            headers={"X-Toolcall-Scenario": name},
        )
        stem = name.removeprefix("published/")
        return response.status_code, response.text.replace(json.dumps(stem)[1:-1], "NAME")

    exists = answer("published/../../openai/single_call")
    missing = answer("published/../../openai/no_such_file")
    assert exists == missing
    assert exists[0] == 404


def test_real_recordings_still_served(server: serving.Running) -> None:
    recording = recordings.discover(SUITE.cassettes, "kimi", wire="chat")[0]
    response = httpx.post(
        server.url("kimi") + "/chat/completions",
        json={"stream": True},
        headers={"X-Toolcall-Scenario": f"published/{recording.name}"},
    )
    assert response.content == cassettes.response_body(cassettes.load(recording.path))


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example"])
def test_only_the_host_names_it_was_started_for(server: serving.Running, host: str) -> None:
    status, error = error_of(server, request("/v1/models", b"", host=host, method="GET"))
    assert status == 421
    assert host.split(":")[0] in error["message"]


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n", 400),
        (b"GET /v1/models HTTP/1.1\r\n\r\n", 400),
        (b"GET http://evil.example/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 421),
        (b"GET http://u@evil.example:80/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 421),
    ],
    ids=["two-hosts", "no-host", "absolute-form", "absolute-form-userinfo"],
)
def test_every_name_a_request_gives_for_the_host_is_checked(
    server: serving.Running, raw: bytes, status: int
) -> None:
    assert error_of(server, raw)[0] == status


def test_a_request_line_in_absolute_form_for_a_loopback_name_is_answered(
    server: serving.Running,
) -> None:
    raw = b"GET http://localhost/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    assert exchange(server, raw).status == 200


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST:1", "[::1]", "[::1]:80"])
def test_loopback_names_are_answered(server: serving.Running, host: str) -> None:
    response = exchange(server, request("/v1/models", b"", host=host, method="GET"))
    assert response.status == 200


def test_more_host_names_when_asked() -> None:
    with serving.serving(SUITE, allowed_hosts=["toolcall.test"]) as running:
        raw = request("/v1/models", b"", host="toolcall.test:9", method="GET")
        assert exchange(running, raw).status == 200


# --- malformed requests -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "status", "says"),
    [
        (post_json(b"[1]"), 400, "JSON object"),
        (post_json(b"null"), 400, "JSON object"),
        (post_json(b'"x"'), 400, "JSON object"),
        (post_json(b"{"), 400, "not JSON"),
        (post_json(b"\xff\xfe"), 400, "not JSON"),
        (post_json(b"[" * 100_000), 400, "nested"),
        (request("/openai/v1/chat/completions", b"{}", "Content-Length: abc"), 400, "Length"),
        (request("/openai/v1/chat/completions", b"{}", "Content-Length: -1"), 400, "Length"),
        (request("/openai/v1/chat/completions", b"{}", "Content-Length: +2"), 400, "Length"),
        (request("/openai/v1/chat/completions", b"{}", f"Content-Length: {10**12}"), 413, "MiB"),
        (
            request("/openai/v1/chat/completions", b"{}", "Content-Length: 2", "Content-Length: 3"),
            400,
            "Length",
        ),
        (
            request("/openai/v1/chat/completions", b"{}", "Transfer-Encoding: gzip"),
            400,
            "Transfer-Encoding",
        ),
        (
            request(
                "/openai/v1/chat/completions",
                b"2\r\n{}\r\n0\r\n\r\n",
                "Transfer-Encoding: chunked",
                "Content-Length: 2",
            ),
            400,
            "both",
        ),
        (
            request("/openai/v1/chat/completions", b"zz\r\n", "Transfer-Encoding: chunked"),
            400,
            "chunk",
        ),
    ],
)
def test_malformed_bodies_get_an_openai_error(
    server: serving.Running, raw: bytes, status: int, says: str
) -> None:
    got, error = error_of(server, raw)
    assert (got, says in error["message"]) == (status, True), error


@pytest.mark.parametrize("delay", ["nan", "inf", "-inf", "-5", "1e300", "abc", "5001"])
def test_a_bad_delay_is_refused_before_the_stream_starts(
    server: serving.Running, delay: str
) -> None:
    body = json.dumps(SCENARIO).encode()
    status, error = error_of(server, post_json(body, f"X-Toolcall-Delay-Ms: {delay}"))
    assert status == 400
    assert "X-Toolcall-Delay-Ms" in error["message"]


def test_a_chunked_request_body_is_read(server: serving.Running) -> None:
    body = json.dumps(SCENARIO).encode()
    half = len(body) // 2
    chunked = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (
        half,
        body[:half],
        len(body) - half,
        body[half:],
    )
    raw = request(
        "/deepseek/v1/chat/completions", chunked, "Transfer-Encoding: chunked", "Connection: close"
    )
    sock = socket.create_connection(address(server), timeout=10)
    sock.sendall(raw)
    response = http.client.HTTPResponse(sock)
    response.begin()
    assert response.status == 200
    path = cassettes.cassette_path(SUITE.cassettes, "deepseek", "single_call")
    assert response.read() == cassettes.response_body(cassettes.load(path))
    sock.close()


def test_an_error_sent_before_the_body_is_read_closes_the_connection(
    server: serving.Running,
) -> None:
    smuggled = b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    raw = request("/nowhere", smuggled, f"Content-Length: {len(smuggled)}")
    sock = socket.create_connection(address(server), timeout=10)
    sock.sendall(raw)
    received = b""
    while chunk := sock.recv(65536):  # the server must close; a timeout here fails the test
        received += chunk
    sock.close()
    assert received.count(b"HTTP/1.1 ") == 1
    assert received.startswith(b"HTTP/1.1 404")
    assert b"Connection: close" in received


def test_an_unexpected_failure_is_a_500_not_an_empty_reply(
    server: serving.Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> bytes:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server.catalogue, "body_for", broken)
    status, error = error_of(server, post_json(json.dumps(SCENARIO).encode()))
    assert status == 500
    assert error["type"] == "server_error"


def test_an_unknown_method_gets_json(server: serving.Running) -> None:
    raw = b"BREW /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    status, _error = error_of(server, raw)
    assert status == 501


# --- the edges of HTTP/1.1: every request gets a status line -----------------------------------


@pytest.mark.parametrize(
    ("line", "status"),
    [
        (b"GARBAGE", 400),
        (b"GET /v1/models", 400),  # HTTP/0.9's form: its answer would have no status line
        (b"GET /v1/models HTTP/1.1 extra", 400),
        (b"GET /v1/models HTTP/2.0", 505),
        (b"PRI * HTTP/2.0", 505),  # what a client with HTTP/2 prior knowledge opens with
        (b"GET /v1/models HTTP/x.y", 400),
    ],
)
def test_a_malformed_request_line_gets_a_status_line(
    server: serving.Running, line: bytes, status: int
) -> None:
    got, _error = error_of(server, line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    assert got == status


def models(host: str = "127.0.0.1") -> bytes:
    return request("/v1/models", b"", method="GET", host=host)


def test_a_request_line_over_64_kib_after_an_empty_line_is_refused(server: serving.Running) -> None:
    status, _error = error_of(server, b"\r\nGET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n")
    assert status in (400, 414)


@pytest.mark.parametrize("blank", [b"\r\n", b"\n", b"\r\n\r\n"])
def test_empty_lines_before_a_request_line_are_ignored(
    server: serving.Running, blank: bytes
) -> None:
    """RFC 9112, section 2.2: a server ignores at least one empty line before a request line."""
    response = exchange(server, blank + models())
    assert response.status == 200


class _OneReader(io.BufferedReader):
    """A socket's reader that every `http.client.HTTPResponse` on it shares (the first response
    may read ahead into the second) and none closes."""

    def close(self) -> None:
        pass

    def makefile(self, *_args: object, **_kwargs: object) -> _OneReader:
        return self


def test_an_empty_line_between_kept_alive_requests_loses_neither(server: serving.Running) -> None:
    body = json.dumps(SCENARIO).encode()
    sock = socket.create_connection(address(server), timeout=10)
    sock.sendall(post_json(body) + b"\r\n" + models())
    one_reader = _OneReader(socket.SocketIO(sock, "rb"))
    first = http.client.HTTPResponse(one_reader)  # type: ignore[arg-type]
    first.begin()
    first.read()
    second = http.client.HTTPResponse(one_reader)  # type: ignore[arg-type]
    second.begin()
    document = json.loads(second.read())
    sock.close()
    assert (first.status, second.status) == (200, 200)
    assert document["object"] == "list"


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_the_captured_requests_are_strict_json(number: bytes) -> None:
    """Python reads `NaN` and `1e400` as floats; sent back as they are, the capture would not be
    JSON. Such a body is kept as its text."""
    body = b'{"model": "any", "messages": [], "temperature": ' + number + b"}"
    with serving.serving(SUITE) as running:
        exchange(running, post_json(body))
        raw = exchange_body(running, models().replace(b"/v1/models", b"/_toolcall/requests"))
    (captured,) = json.loads(raw, parse_constant=_refuse_constant)["requests"]
    assert captured["body"] == body.decode()


def _refuse_constant(name: str) -> None:
    raise AssertionError(f"{name} in what should be strict JSON")


def exchange_body(running: serving.Running, raw: bytes) -> bytes:
    sock = socket.create_connection(address(running), timeout=10)
    sock.sendall(raw)
    response = http.client.HTTPResponse(sock)
    response.begin()
    data = response.read()
    sock.close()
    assert response.status == 200
    return data


# --- no client holds the server -----------------------------------------------------------


def test_an_idle_connection_is_closed() -> None:
    with serving.serving(SUITE, idle_timeout=0.3) as running:
        sock = socket.create_connection(address(running), timeout=5)
        assert sock.recv(1) == b""  # closed by the server, well before the 5 s here
        sock.close()


def test_handler_threads_are_bounded() -> None:
    with serving.serving(SUITE, max_handlers=2, idle_timeout=5) as running:
        idle = [socket.create_connection(address(running), timeout=5) for _ in range(2)]
        try:
            refused = None
            for _attempt in range(50):
                response = httpx.get(running.base_url + "/v1/models", timeout=5)
                if response.status_code == 503:
                    refused = response
                    break
            assert refused is not None
            assert refused.json()["error"]["type"] == "server_error"
        finally:
            for sock in idle:
                sock.close()
        answered = [
            httpx.get(running.base_url + "/v1/models", timeout=5).status_code for _ in range(20)
        ]
        assert 200 in answered  # slots come back once the idle clients leave


def test_many_concurrent_clients_all_answered(server: serving.Running) -> None:
    clients, each = 128, 4
    host, port = address(server)
    start = threading.Barrier(clients)
    statuses: list[int | str] = []
    lock = threading.Lock()

    def client() -> None:
        start.wait(timeout=30)
        for _ in range(each):
            try:
                connection = http.client.HTTPConnection(host, port, timeout=30)
                connection.request("GET", "/v1/models")
                status: int | str = connection.getresponse().status
                connection.close()
            except OSError as exc:
                status = repr(exc)
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert statuses.count(200) == clients * each, [s for s in statuses if s != 200][:5]


# --- the command --------------------------------------------------------------------------


def test_a_port_in_use_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        code = cli.main(["--root", str(ROOT), "serve", "--port", str(port)])
    finally:
        taken.close()
    captured = capsys.readouterr()
    assert code != 0
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f"127.0.0.1:{port}" in lines[0]
    assert "in use" in lines[0]
    assert "--port" in lines[0]
    assert "Traceback" not in captured.err + captured.out


def test_stop_does_not_wait_for_a_client_keeping_its_connection() -> None:
    running = serving.start(SUITE)  # the default idle timeout: 30 s
    idle = socket.create_connection(address(running), timeout=5)
    response = httpx.get(running.base_url + "/v1/models", timeout=5)
    assert response.status_code == 200
    stopping = threading.Thread(target=serving.stop, args=(running,), daemon=True)
    stopping.start()
    stopping.join(timeout=5)
    idle.close()
    assert not stopping.is_alive()


# Memory: a body's length does not bound what reading it as JSON takes.


def _given_back(memory: serve_input.MemoryBudget) -> bool:
    """Whether the budget is whole again within a few seconds: a handler gives its share back
    after the answer went out, so the client may see the answer first."""
    deadline = time.monotonic() + 5
    while memory.used and time.monotonic() < deadline:
        time.sleep(0.01)
    return memory.used == 0


def test_a_body_that_would_take_more_than_the_budget_to_read_is_refused_unread() -> None:
    """16 MiB of empty objects: 5.6 million values, about 440 MB once read. Refused with a 413
    from its counts alone, and the budget is whole again afterwards."""
    filler = b"{}," * ((serve_input.MAX_BODY_BYTES - 64) // 3)
    body = b'{"stream": true, "x": [' + filler + b"{}]}"
    assert len(body) <= serve_input.MAX_BODY_BYTES
    with serving.serving(SUITE) as running:
        url = running.url("openai", "single_call") + "/chat/completions"
        answer = httpx.post(url, content=body, timeout=30)
        assert answer.status_code == 413, answer.text[:300]
        assert "reading this body as JSON would take about" in answer.json()["error"]["message"]
        assert _given_back(running.server.memory)


def test_requests_that_do_not_fit_together_wait_their_turn_with_a_503() -> None:
    with serving.serving(SUITE) as running:
        memory = running.server.memory
        url = running.url("openai", "single_call") + "/chat/completions"
        request = json.dumps(SCENARIO).encode()
        held = memory.hold(0, memory.total - serve_input.read_cost(request) + 1)  # all but a byte
        busy = httpx.post(url, content=request, timeout=10)
        assert busy.status_code == 503, busy.text[:300]
        assert busy.json()["error"]["type"] == "server_busy"
        memory.hold(held, 0)
        served = httpx.post(url, content=request, timeout=10)
        assert served.status_code == 200 and b"[DONE]" in served.content
        assert _given_back(memory)  # held while answering, given back after


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(), inner, max_size=8),
    max_leaves=400,
)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON)
def test_the_read_cost_bounds_what_reading_takes(value: Any) -> None:
    """The budget rests on this: what `json.loads` allocates at its peak is never more than
    `read_cost` of the text, whatever the JSON holds (astral text, deep arrays, many keys)."""
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8")
    tracemalloc.start()
    try:
        json.loads(raw)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= serve_input.read_cost(raw), (peak, len(raw))
