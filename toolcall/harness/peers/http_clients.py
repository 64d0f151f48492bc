"""Real HTTP clients, in Python and JavaScript, judged end to end through `toolcall serve`.

The in-process peers are handed decoded chunks; these are handed a URL. A local simulator
(`harness.serve`, started once per process on 127.0.0.1) serves exactly the bytes the other
implementations are judged on, registered under a one-off token the client sends as a header, so
a client's own HTTP stack, SSE reader and accumulator are all under test and the columns stay
comparable. The JavaScript clients are small programs under `clients/js/` run with Node; their
packages are pinned by `clients/js/package-lock.json` and installed by `make matrix` on first use.
They come with a checkout of the repository only: an installed package has no `clients/js/`, and
says so instead of advising a `make` target that is not there.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import scrub, serve
from ..cassettes import CHAT
from . import Assembled, Chunk, Unavailable
from .external import Crashed, TimedOut, read_document
from .installed import require
from .reference import sse_body

#: Where the JavaScript clients live in a checkout.
JS_CLIENTS = Path(__file__).resolve().parents[3] / "clients" / "js"
TIMEOUT = 60.0
BODY_HEADER = "X-Toolcall-Body"

_lock = threading.Lock()
_running: serve.Running | None = None


def simulator() -> serve.Running:
    """The process's one simulator serving registered bodies, started on first use."""
    global _running
    with _lock:
        if _running is None:
            _running = serve.start(None)
            atexit.register(serve.stop, _running)
        return _running


@contextmanager
def served(body: bytes, wire: str = CHAT) -> Iterator[tuple[str, dict[str, str]]]:
    """`body` registered with the simulator for `wire`'s path: yields the simulator's URL
    (before any API root) and the headers that fetch the body; forgotten when the block ends.
    Every client of the matrix that is not handed the stream in memory fetches it this way."""
    running = simulator()
    token = running.catalogue.register(body, wire)
    try:
        yield running.base_url, {BODY_HEADER: token}
    finally:
        running.catalogue.forget(token)


def _job(request: Mapping[str, Any], url: str, headers: dict[str, str]) -> dict[str, Any]:
    body = {**request, "stream": True, "model": request.get("model") or "model"}
    return {"base_url": f"{url}/any/v1", "headers": headers, "request": body}


class _Served:
    """Register the stream's bytes, let the client fetch them, forget them."""

    name = ""
    version = ""

    def assemble(self, chunks: Sequence[Chunk], request: Mapping[str, Any]) -> Assembled:
        with served(sse_body(chunks)) as (url, headers):
            return self.fetch(_job(request, url, headers))

    def fetch(self, job: Mapping[str, Any]) -> Assembled:
        raise NotImplementedError


class NodeClient(_Served):
    """One of the JavaScript programs under `clients/js/`, run with Node per stream."""

    def __init__(self, name: str, script: str, packages: Sequence[str]) -> None:
        node = shutil.which("node")
        if node is None:
            raise Unavailable("node is not installed")
        if not (JS_CLIENTS / "package.json").is_file():
            raise Unavailable(
                "the JavaScript clients come with a checkout of the toolcall repository "
                "(clients/js/), not with the installed package"
            )
        modules = JS_CLIENTS / "node_modules"
        versions = []
        for package in packages:
            manifest = modules / package / "package.json"
            if not manifest.is_file():
                raise Unavailable(
                    f"{package} is not installed in {JS_CLIENTS} (run `make matrix`, which runs "
                    "`npm ci` there)"
                )
            versions.append(f"{package} {json.loads(manifest.read_text())['version']}")
        self.name = name
        self.version = f"{', '.join(versions)} on Node {_node_version(node)}"
        self.command = [node, str(JS_CLIENTS / script)]

    def fetch(self, job: Mapping[str, Any]) -> Assembled:
        try:
            done = subprocess.run(
                self.command,
                input=json.dumps(job).encode("utf-8"),
                capture_output=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise TimedOut(f"timed out after {TIMEOUT:g} s") from None
        if done.returncode != 0:
            message = _crash_line(done.stderr.decode("utf-8", "replace"))
            raise Crashed(scrub.printable(message, ()))
        try:
            document = json.loads(done.stdout)
        except ValueError:
            raise Crashed("standard output is not one JSON document") from None
        return read_document(document)


def _node_version(node: str) -> str:
    """`v22.1.0`, as the footer of the matrix says which clients ran on Node."""
    try:
        done = subprocess.run([node, "--version"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "(version unknown)"
    return done.stdout.decode("utf-8", "replace").strip() or "(version unknown)"


def openai_node() -> NodeClient:
    return NodeClient("openai-node", "openai_node.mjs", ["openai"])


def vercel_ai() -> NodeClient:
    return NodeClient("vercel-ai", "vercel_ai.mjs", ["ai", "@ai-sdk/openai-compatible"])


class OpenAIPythonHttp(_Served):
    """The Python openai SDK over real HTTP: `chat.completions.stream(...)` and its final
    completion, the way an application uses it (beside the in-process `openai-sdk` adapter)."""

    name = "openai-sdk-http"

    def __init__(self) -> None:
        openai, self.version = require("openai", "openai")
        self._openai = openai

    def fetch(self, job: Mapping[str, Any]) -> Assembled:
        openai = self._openai
        client = openai.OpenAI(
            base_url=job["base_url"],
            api_key="anything",
            default_headers=job["headers"],
            max_retries=0,
            timeout=TIMEOUT,
        )
        request = {k: v for k, v in job["request"].items() if k in _SDK_ARGUMENTS}
        extra = {k: v for k, v in job["request"].items() if k not in _SDK_ARGUMENTS | {"stream"}}
        try:
            with client.chat.completions.stream(**request, extra_body=extra or None) as stream:
                completion = stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            return Assembled(error=f"{type(exc).__name__}: {exc}")
        finally:
            client.close()
        choice = completion.choices[0] if completion.choices else None
        calls = (choice.message.tool_calls if choice else None) or []
        document: dict[str, Any] = {
            "tool_calls": [
                {
                    "id": c.id or "",
                    "function": {
                        "name": c.function.name or "",
                        "arguments": c.function.arguments or "",
                    },
                }
                for c in calls
            ]
        }
        if choice is not None and choice.finish_reason == "length":
            document["error"] = "finish_reason length"
        return read_document(document)


#: Request fields the SDK takes as arguments; any other (tool_stream, enable_thinking) goes in
#: `extra_body`, as an application sends a provider's own fields.
_SDK_ARGUMENTS = frozenset(
    {"model", "messages", "tools", "tool_choice", "stream_options", "temperature", "max_tokens"}
)


def _crash_line(stderr: str) -> str:
    """The line of a Node crash that names the error (`TypeError: ...`), not the source excerpt
    Node prints above it."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"^[A-Za-z_$][\w$]*(Error|Exception)\b.*:", line)]
    return (named[0] if named else lines[-1] if lines else "node exited without a message")[:200]
