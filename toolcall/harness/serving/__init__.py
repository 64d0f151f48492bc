"""`toolcall serve`: a local OpenAI-compatible server that answers from the cassettes.

Any HTTP client, in any language, can then be tested end to end against every provider's way of
streaming tool calls, with no key and no network: point its base URL at
`http://127.0.0.1:PORT/<provider>/v1` and send the request a scenario describes. The server picks
the cassette by provider (the path's first segment, or an `X-Toolcall-Provider` header) and by the
request (the scenario whose messages and tools the body carries, or one named in an
`X-Toolcall-Scenario` header, which may also name a published recording as `published/<stem>`),
then streams the cassette's body one SSE event per write, as a provider does.

Gateways and proxies drop headers they do not know, so everything a header chooses can also be
chosen in the path, before the `/v1` a client's base URL ends with:

    /<provider>/v1/chat/completions                        the request's body picks the scenario
    /<provider>/<scenario>/v1/chat/completions             that scenario's cassette
    /<provider>/published/<recording>/v1/chat/completions  that published recording
    /<provider>[/<scenario>]/fault/<fault>/v1/chat/completions   with that fault

The `/v1` is optional. What the path names wins over the headers, which win over the body;
`published` and `fault` are therefore no scenario's name.

Faults are asked for per request (in the path, `X-Toolcall-Fault`, or a `fault` query parameter),
so one server covers the failure paths of a client too:

- `cut`: the connection drops halfway through the events, mid-call;
- `429`: `429 Too Many Requests` with `Retry-After: 1` and an OpenAI-style error body;
- `500`: `500` with an error body;
- `drip`: a pause before every event (`X-Toolcall-Delay-Ms`, default 50 ms with `drip`);
- `keepalive`: a `: keep-alive` comment before every event.

The other wires are answered at the path their provider serves (`wires.WIRE_PATHS`, the one table of
them), since that is where their SDKs post:

- `POST /v1/responses` (or `/responses`, as DeepSeek's base URL puts it): the Responses API;
- `POST /v1/messages`: Anthropic's Messages API;
- `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: Gemini's own API, as an event
  stream; without `alt=sse` (or with `alt=json`) Gemini answers one JSON array instead, so that
  request is answered by a recording of that framing, and each framing only by its own;
  `:generateContent`, Gemini's unstreamed method, is answered whole (`application/json`): a
  recording as the one answer its events make, a fault mode as its plain turn;
- `POST /api/chat`: Ollama's, newline-delimited JSON (`application/x-ndjson`).

There the recording is the one `X-Toolcall-Scenario: wires/<wire>/<name>` names, else the first
one the provider of a path prefix (`/<provider>/v1/responses`, a provider or `wire_only` key of
providers.yaml) offers on that wire. The faults above are served on chat completions only: a
keep-alive comment or a cut mid-event means something else on each wire, and no recording shows
one yet.

The stream faults of public bug reports are served on every wire they can exist on (`faults`,
one row of data each; `toolcall serve --faults` lists them), asked for the same ways or by a
model named `fault:NAME`. Their answer is built from the request (`plain`, written by
`render`), not taken from a cassette, since a probe's requests match no scenario.

The matrix also registers bodies of its own (a truncated variant, say) and hands the client a
token for them (`X-Toolcall-Body`), so an HTTP client is judged on exactly the bytes the in-process
implementations get; a body is registered for one wire and served at that wire's path only, so a
client that calls another endpoint is told so. This is the one way a recorded body reaches a
client that is not handed it in memory: every SDK and program of the matrix fetches it here.
Every body is written one event per write (one line for Ollama), as a provider flushes them.

The server keeps the last `CAPTURED` POSTs it received (method, path, headers with credentials
masked, parsed body), in process (`Running.requests()`) and over HTTP (`GET /_toolcall/requests`;
`DELETE` empties it), so a test can compare what a gateway forwarded with the scenario's request.
A body over `CAPTURED_BODY_BYTES` is kept as its size only: memory stays bounded whatever arrives;
so is one nested deeper than `CAPTURED_DEPTH`, which the capture could not be sent back as. A
body JSON cannot carry back (`NaN`, `Infinity`, `1e400`, which Python reads as floats) is kept as
its text: what `GET /_toolcall/requests` sends is strict JSON.

It is a server on the user's machine that clients broken on purpose talk to, so it holds
itself to limits (the checks on input are in `input`):

- it reads nothing it was not asked for: a recording name is looked up among the recordings
  that exist, never joined to a path, and an unknown name gets the same 404 whether or not
  some file of that name exists elsewhere;
- it answers only the host names it was started for (the loopback names, `--host`, and
  `--allow-host`), with 421 otherwise: a web page that resolves its own name to 127.0.0.1
  (DNS rebinding) still sends its own name;
- every malformed request gets a 4xx in the OpenAI error shape before any 200: a body that is
  not a JSON object or is nested past the decoder, a bad `Content-Length` or one over 16 MiB
  (413, refused before reading), a bad `X-Toolcall-Delay-Ms`; a bug here is a 500, never an
  empty reply. A refusal sent before the body was read closes the connection, or the body
  would be read as the next request. Every reply has a status line, whatever the request
  line: one that is not `METHOD target HTTP/1.x` (`GARBAGE`, HTTP/0.9's `GET /`) is a 400,
  `HTTP/2.0` (a client with `--http2-prior-knowledge`) a 505; up to `BLANK_LINES` empty lines
  before a request line are ignored, between kept-alive requests too (RFC 9112, section 2.2);
- the requests being served hold at most `input.MEMORY_BUDGET` together, counting what
  reading each body as JSON takes (bounded from its counts of commas, colons and brackets
  before it is read): a body that could never fit gets a 413, one that does not fit now a 503;
- a connection silent for `IDLE_TIMEOUT` is closed, at most `MAX_HANDLERS` are served at once
  (one more gets a 503 from the accept loop, which never blocks), and the listen backlog is
  `LISTEN_BACKLOG`, so a burst of clients queues instead of being reset.

The idle timeout is per read, not a deadline for the whole request: a client sending one
header byte every few seconds keeps its thread, but only one of `MAX_HANDLERS`; a deadline
would need a selector loop of our own. Everything here is the standard library's `http.server`:
a test tool must not need more than the suite it serves, and these limits fit in a few
overrides of it.

One module a job: `routes` (which path asks for what), `catalogue` (which body
answers), `capture` (the requests kept), `input` (the checks on what a client sends),
`handler` (one request answered) and `server` (the server's life and limits); for the stream
faults, `faults` (the table), `plain` (the sound answer to a request) and `render` (that answer
on each wire).
"""

from __future__ import annotations

from ..reading.wires import WIRE_PATHS, WirePath
from .capture import CAPTURE_PATH, CAPTURED, CAPTURED_BODY_BYTES, CAPTURED_DEPTH, Received
from .catalogue import Catalogue, NoCassette
from .routes import FAULT_SEGMENT, FAULTS, BadRoute, Route, route
from .server import CannotListen, Running, serving, start, stop

__all__ = [
    "CAPTURED",
    "CAPTURED_BODY_BYTES",
    "CAPTURED_DEPTH",
    "CAPTURE_PATH",
    "FAULTS",
    "FAULT_SEGMENT",
    "WIRE_PATHS",
    "BadRoute",
    "CannotListen",
    "Catalogue",
    "NoCassette",
    "Received",
    "Route",
    "Running",
    "WirePath",
    "route",
    "serving",
    "start",
    "stop",
]
