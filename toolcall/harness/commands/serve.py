"""`toolcall serve`: the cassettes answered over HTTP on every wire, until interrupted."""

from __future__ import annotations

import argparse
import sys

from ..suite.profiles import Suite
from .common import cannot_listen

HELP = "a local OpenAI-compatible server answering from the cassettes"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8765, help="port (default 8765; 0 for any free)"
    )
    parser.add_argument("--verbose", action="store_true", help="log every request")
    parser.add_argument(
        "--faults",
        action="store_true",
        help="print the stream faults a request can ask for (X-Toolcall-Fault or a model "
        "named fault:NAME), each with its wires and the report it reproduces, and exit",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="answer this Host name too (loopback names and --host are always answered)",
    )


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Serve until interrupted, after saying where and how to reach each provider."""
    from .. import serving
    from ..serving import faults

    if args.faults:
        print(faults.table())
        return 0
    try:
        running = serving.start(
            suite,
            host=args.host,
            port=args.port,
            verbose=args.verbose,
            allowed_hosts=args.allow_host,
        )
    except OSError as exc:
        print(f"toolcall serve: {cannot_listen(args.host, args.port, exc)}", file=sys.stderr)
        return 1
    print(f"toolcall serve: {running.base_url}  (Ctrl-C to stop)")
    for key in suite.providers:
        print(f"  {key:<9} base URL {running.url(key)}")
    print(
        "  pick a cassette by sending a scenario's request (scenarios.yaml) or with "
        "X-Toolcall-Scenario; faults with X-Toolcall-Fault: " + ", ".join(serving.FAULTS)
    )
    print(
        "  other wires: POST /v1/responses, /v1/messages, "
        "/v1beta/models/{model}:streamGenerateContent?alt=sse (without alt: a JSON array), "
        "/api/chat, the recording named by "
        "X-Toolcall-Scenario: wires/<wire>/<name> or a /<provider>/ prefix"
    )
    print(
        "  stream faults on every wire: X-Toolcall-Fault or the model fault:NAME "
        "(toolcall serve --faults lists them)"
    )
    try:
        running.thread.join()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        serving.stop(running)
    return 0
