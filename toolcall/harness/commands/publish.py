"""`toolcall publish`: a third party's recording brought in as evidence, with its provenance."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reading import wires
from ..suite import recordings
from ..suite.cassettes import CHAT
from ..suite.profiles import DIRECT, Suite

HELP = "bring a third party's published recording in as evidence (verbatim, with provenance)"
WRITES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", type=Path, help="the recording: an SSE body, or JSON chunks one per line"
    )
    parser.add_argument(
        "--wire",
        default=CHAT,
        choices=tuple(wires.WIRES),
        help="the API it was streamed on (default chat): another wire's recording is kept "
        "verbatim under cassettes/wires/<wire>/ with its .source.json",
    )
    parser.add_argument("--provider", required=True, help="the providers.yaml key it belongs to")
    parser.add_argument("--repository", required=True, help="owner/name of the source repository")
    parser.add_argument("--path", required=True, help="the file's path in that repository")
    parser.add_argument("--commit", required=True, help="the 40-hex commit it was taken at")
    parser.add_argument("--license", required=True, help="the source's license (SPDX id)")
    parser.add_argument("--model", required=True, help="the model the chunks name")
    parser.add_argument("--origin", required=True, choices=recordings.ORIGINS)
    parser.add_argument("--relay", help="the relay it went through (with --origin relay)")
    parser.add_argument(
        "--route",
        default="direct",
        help="the route of routes.yaml it came through (default direct)",
    )
    parser.add_argument("--endpoint", help="the API host it came from, when known")
    parser.add_argument(
        "--extraction", help="how the body was cut out of its source file, if it was"
    )
    parser.add_argument("--notes", help="anything a reader of the evidence must know")
    parser.add_argument(
        "--jsonl", action="store_true", help="the file holds one JSON chunk per line"
    )
    parser.add_argument(
        "--from-jsonl",
        action="store_true",
        help="the file is SSE already made from an upstream file of one JSON chunk per line",
    )
    parser.add_argument(
        "--blank-line",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="empty line N (an author's elision mark between events); recorded, reversible",
    )


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Write the cassette; the expectation beside it is left to a person, on purpose."""
    suite.route(args.route)  # an unknown route is a ProfileError naming the known ones
    try:
        body = args.file.read_bytes()
    except OSError as exc:
        print(f"toolcall: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.wire != CHAT:
        return _publish_wire(suite, args, body)
    if args.provider not in suite.providers:
        print(f"toolcall: unknown provider {args.provider!r}", file=sys.stderr)
        return 2
    cassette = recordings.build_cassette(
        body, provenance(args), jsonl=args.jsonl, blank=args.blank_line
    )
    stem = args.file.name.rsplit(".", 1)[0]
    path = recordings.write(suite.cassettes, args.provider, stem, cassette)
    expected = path.with_name(stem + recordings.EXPECTED_SUFFIX)
    print(f"wrote {path.relative_to(suite.root)}")
    print(
        f"now write {expected.relative_to(suite.root)} by hand from the bytes "
        "(format: toolcall/schemas/expected.schema.json); refused without one"
    )
    return 0


def provenance(args: argparse.Namespace) -> dict[str, object]:
    """Where the recording came from, as its cassette's metadata says it."""
    optional = {
        "relay": args.relay,
        "endpoint": args.endpoint,
        "extraction": args.extraction,
        "notes": args.notes,
    }
    found: dict[str, object] = {
        "source": {"repository": args.repository, "path": args.path, "commit": args.commit},
        "license": args.license,
        "model": args.model,
        "origin": args.origin,
        **{key: value for key, value in optional.items() if value},
    }
    if args.route != DIRECT:
        found["route"] = args.route
    if args.from_jsonl:
        found["source_format"] = "jsonl"
    return found


def _publish_wire(suite: Suite, args: argparse.Namespace, body: bytes) -> int:
    """Keep another wire's recording verbatim, beside the `.source.json` saying where it came
    from; the expectation, and its name in providers.yaml's wire offer, are left to a person."""
    if args.blank_line or args.from_jsonl:
        print("toolcall: --blank-line and --from-jsonl are for chat cassettes", file=sys.stderr)
        return 2
    # The names a recording's provenance may give on the wire (`recorded_as`: Google's APIs
    # are recorded as `google-gemini-api`, Ollama's cloud as `ollama-cloud`).
    offers = [o for o in suite.wire_offers if o.wire == args.wire]
    named = sorted({n for o in offers for n in o.recorded_as})
    if args.provider not in named:
        print(
            f"toolcall: no provider offers the {args.wire} wire as {args.provider!r} in "
            f"providers.yaml; the names its recordings may give: {', '.join(named)}",
            file=sys.stderr,
        )
        return 2
    # As the library tells it, among the wire's own framings; `--jsonl`: one event's JSON a line.
    framing = "jsonl" if args.jsonl else wires.framing_of(args.wire, body)
    kept = {"repository": args.repository, "path": args.path, "commit": args.commit}
    kept |= {"license": args.license, "sha256": recordings.sha256(body)}
    source: dict[str, object] = {
        "kind": "published",
        "wire": args.wire,
        "framing": framing,
        "provider": args.provider,
        "model": args.model,
        "provenance": kept,
        "party": args.origin,
    }
    optional = {
        "relay": args.relay,
        "endpoint": args.endpoint,
        "extraction": args.extraction,
        "notes": args.notes,
        "route": None if args.route == DIRECT else args.route,
    }
    source |= {key: value for key, value in optional.items() if value}
    stem = args.file.name.rsplit(".", 1)[0]
    body_path, source_path = recordings.write_wire(suite.cassettes, args.wire, stem, body, source)
    expected = source_path.with_name(stem + recordings.EXPECTED_SUFFIX)
    print(f"wrote {body_path.relative_to(suite.root)} and {source_path.relative_to(suite.root)}")
    rows = [
        f"{o.provider}.wires.{o.wire}.recordings" for o in offers if args.provider in o.recorded_as
    ]
    print(
        f"now write {expected.relative_to(suite.root)} by hand from the bytes, and name "
        f"{stem!r} under providers.yaml's {' or '.join(rows)}; refused without them"
    )
    return 0
