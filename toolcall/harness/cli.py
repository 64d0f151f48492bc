"""`toolcall`: the command line of the harness.

The same checks the pytest suite runs, for users who want the matrix without pytest (another
project's CI, a quick look after editing a profile), and `matrix`, which runs other assemblers
over the same cassettes. Exit codes: 0 all good, 1 a check failed or drift was found (for
`matrix`: the run broke, the reference failed or an external program never started; failing peers
are data), 2 the invocation or the profiles were wrong.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import accept, cassettes, conformance_report, recordings, streams, synthesize
from .checks import check_cell, check_cut, check_recording, check_route_cell, route_cassettes
from .gateways import command as gateways_command
from .locate import require_checkout, suite_root
from .matrix import COLUMN_BUDGET
from .peers.external import DEFAULT_TIMEOUT
from .profiles import DIRECT, ProfileError, Suite, load_suite
from .record import DEFAULT_DEADLINE, DEFAULT_MAX_BYTES

#: The commands that write into the checkout (cassettes/, providers.yaml; `gateways` installs
#: into .gateways/ and needs the committed gateways/ folder).
WRITERS = ("record", "add-provider", "synthesize", "publish", "gateways")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolcall", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder with providers.yaml (default: this checkout, else the data the package ships)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("conformance", help="replay every cassette and print the matrix")
    _filters(check)
    check.add_argument("--markdown", type=Path, help="also write the matrix as Markdown here")
    check.add_argument("--json", type=Path, help="also write the report as JSON here")

    synth = commands.add_parser("synthesize", help="rewrite the synthesized cassettes")
    _filters(synth)

    rec = commands.add_parser("record", help="record cassettes from the live API with your key")
    _filters(rec)
    rec.add_argument("--base-url", help="send to this base URL instead (gateway, proxy, vLLM...)")
    rec.add_argument(
        "--route",
        help="the route of routes.yaml the base URL is (a host, relay or gateway; `direct` for "
        "another domain of the vendor); required with a base URL that is not the provider's",
    )
    rec.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="send this request header too (repeatable; a gateway's routing headers); never "
        "written, its value masked in output",
    )
    rec.add_argument("--model", help="send this model name instead of the profile's (an alias)")
    rec.add_argument(
        "--out", type=Path, help="write cassettes under this folder (default cassettes/)"
    )
    rec.add_argument(
        "--timeout", type=float, default=120.0, help="seconds a connection or one read may take"
    )
    rec.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE,
        help=f"seconds one cell may take in all, retries included (default {DEFAULT_DEADLINE:g})",
    )
    rec.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"bytes one response may have (default {DEFAULT_MAX_BYTES})",
    )
    rec.add_argument(
        "--skip-missing-keys",
        action="store_true",
        help="skip providers whose key variable is unset, saying so (for scheduled CI)",
    )
    rec.add_argument(
        "--accept",
        action="store_true",
        help="write what was observed into providers.yaml (quirks and provenance), or through a "
        "route into that route's changes in routes.yaml, comments kept",
    )

    add = commands.add_parser(
        "add-provider", help="append a new provider's profile to providers.yaml, ready to record"
    )
    add.add_argument("name", help="the providers.yaml key, lower case (vllm, ollama...)")
    add.add_argument("--base-url", required=True, help="the OpenAI-compatible base URL (.../v1)")
    add.add_argument("--key-env", required=True, help="the variable holding its key")
    add.add_argument("--model", required=True, help="the model every scenario asks for")

    mat = commands.add_parser(
        "matrix", help="run every assembler (ours and its peers) over every cassette, side by side"
    )
    _filters(mat)
    mat.add_argument(
        "--implementation",
        action="append",
        metavar="NAME",
        help="only this implementation (repeatable; default: all)",
    )
    mat.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="also run this program through the subprocess protocol (repeatable; docs/MATRIX.md)",
    )
    mat.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds an external program gets per stream (default {DEFAULT_TIMEOUT:g})",
    )
    mat.add_argument(
        "--column-budget",
        type=float,
        default=COLUMN_BUDGET,
        help="seconds one implementation gets for all its streams; the rest are skipped "
        f"(default {COLUMN_BUDGET:g})",
    )
    mat.add_argument("--markdown", type=Path, help="also write the matrix as Markdown here")
    mat.add_argument("--json", type=Path, help="also write the matrix as JSON here")

    pub = commands.add_parser(
        "publish",
        help="bring a third party's published recording in as evidence (verbatim, with provenance)",
    )
    pub.add_argument(
        "file", type=Path, help="the recording: an SSE body, or JSON chunks one per line"
    )
    pub.add_argument("--provider", required=True, help="the providers.yaml key it belongs to")
    pub.add_argument("--repository", required=True, help="owner/name of the source repository")
    pub.add_argument("--path", required=True, help="the file's path in that repository")
    pub.add_argument("--commit", required=True, help="the 40-hex commit it was taken at")
    pub.add_argument("--license", required=True, help="the source's license (SPDX id)")
    pub.add_argument("--model", required=True, help="the model the chunks name")
    pub.add_argument("--origin", required=True, choices=recordings.ORIGINS)
    pub.add_argument("--relay", help="the relay it went through (with --origin relay)")
    pub.add_argument(
        "--route",
        default="direct",
        help="the route of routes.yaml it came through (default direct)",
    )
    pub.add_argument("--endpoint", help="the API host it came from, when known")
    pub.add_argument("--extraction", help="how the body was cut out of its source file, if it was")
    pub.add_argument("--notes", help="anything a reader of the evidence must know")
    pub.add_argument("--jsonl", action="store_true", help="the file holds one JSON chunk per line")
    pub.add_argument(
        "--from-jsonl",
        action="store_true",
        help="the file is SSE already made from an upstream file of one JSON chunk per line",
    )
    pub.add_argument(
        "--blank-line",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="empty line N (an author's elision mark between events); recorded, reversible",
    )

    srv = commands.add_parser(
        "serve", help="a local OpenAI-compatible server answering from the cassettes"
    )
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 for any free)")
    srv.add_argument("--verbose", action="store_true", help="log every request")
    srv.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="answer this Host name too (loopback names and --host are always answered)",
    )

    gw = commands.add_parser(
        "gateways", help="stream every cassette through real gateways and judge what they change"
    )
    _filters(gw)
    gateways_command.add_arguments(gw)

    scan = commands.add_parser("scan", help="look for secrets in cassettes (fails on a hit)")
    scan.add_argument("paths", type=Path, nargs="*", help="files or folders (default cassettes/)")

    args = parser.parse_args(argv)
    try:
        root = suite_root(args.root)
        if args.command in WRITERS and not getattr(args, "out", None):
            require_checkout(root, args.command)
        suite = load_suite(root)
        if args.command == "conformance":
            return _conformance(suite, args.provider, args.scenario, args.markdown, args.json)
        if args.command == "matrix":
            return _matrix(suite, args)
        if args.command == "record":
            return _record(suite, args)
        if args.command == "add-provider":
            return _add_provider(suite, args)
        if args.command == "scan":
            return _scan(suite, args.paths or [suite.cassettes])
        if args.command == "publish":
            return _publish(suite, args)
        if args.command == "serve":
            return _serve(suite, args)
        if args.command == "gateways":
            return gateways_command.main(suite, args)
        return _synthesize(suite, args.provider, args.scenario)
    except (ProfileError, recordings.RecordingError) as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", help="only this provider (a providers.yaml key)")
    parser.add_argument("--scenario", help="only this scenario (a scenarios.yaml key)")


def _conformance(
    suite: Suite,
    provider: str | None,
    scenario: str | None,
    markdown: Path | None,
    json_path: Path | None,
) -> int:
    outcomes = [check_cell(suite, p, c) for p, _s, c in suite.cells(provider, scenario)]
    outcomes += [
        check_route_cell(suite, key, route, path)
        for key, route, _name, path in route_cassettes(suite, provider, scenario)
    ]
    outcomes += [
        check_cell(suite, p, c, wire)
        for p, c, wire in synthesize.cells(suite, provider, scenario)
        if wire != cassettes.CHAT
    ]
    if not scenario:
        found = recordings.selected(suite, provider)
        outcomes += [check_recording(suite, r) for r in found]
        outcomes += [check_cut(suite, c) for c in streams.cuts(suite, provider)]
    print(conformance_report.text(outcomes))
    if markdown:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(conformance_report.markdown(outcomes), encoding="utf-8")
    if json_path:
        _write_json(json_path, conformance_report.document(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0


def _matrix(suite: Suite, args: argparse.Namespace) -> int:
    """Peers that fail are data (exit 0); exit 1 when the run broke, the reference failed or an
    external program never started. External programs run in the caller's directory, where the
    relative paths of their commands were written; progress goes to standard error."""
    import os

    from . import matrix, matrix_report, secrets
    from .peers.external import SpecError, environment_specs

    try:
        implementations, unavailable = matrix.roster(
            args.implementation,
            [*environment_specs(os.environ), *args.external],
            timeout=args.timeout,
            keys=secrets.key_values(p.key_env for p in suite.providers.values()),
        )
    except SpecError as exc:
        print(f"toolcall: --external {exc}", file=sys.stderr)
        return 2
    except matrix.UnknownImplementation as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2
    try:
        result = matrix.run(
            suite,
            implementations,
            provider=args.provider,
            scenario=args.scenario,
            progress=sys.stderr,
            column_budget=args.column_budget,
        )
    except matrix.MatrixError as exc:
        print(f"toolcall: the matrix run broke: {exc}", file=sys.stderr)
        return 1
    result.unavailable.update(unavailable)
    print(matrix_report.text(result))
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(matrix_report.markdown(result), encoding="utf-8")
    if args.json:
        _write_json(args.json, matrix_report.document(result))
    if result.never_started:
        for name in result.never_started:
            print(f"toolcall: {name} never started: {result.unavailable[name]}", file=sys.stderr)
        return 1
    if result.reference_failed:
        print("toolcall: the reference implementation failed a cell", file=sys.stderr)
        return 1
    return 0


#: Where `record` without `--accept` writes its cassettes: out of what git tracks (reports/ is
#: ignored), so a run that only looks never changes a committed cassette.
PENDING = Path("reports") / "pending" / "cassettes"


def _record(suite: Suite, args: argparse.Namespace) -> int:
    """Record the selected cells, one progress line each, then say what was checked.

    A run that recorded nothing says so in a line that does not read as success (and, under
    GitHub Actions, as a warning annotation): a gate that checked nothing must not look green.
    """
    import os
    import time

    from .record import Recorded, RecordError, RecordOptions, record_cell, route_for

    if args.base_url and not args.provider:
        print(
            "toolcall: --base-url needs --provider (one server plays one provider)", file=sys.stderr
        )
        return 2
    if args.accept and args.out:
        print(
            "toolcall: --accept writes providers.yaml for the cassettes under cassettes/; "
            "it cannot go with --out",
            file=sys.stderr,
        )
        return 2
    headers = []
    for header in args.header:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            print(
                f"toolcall: --header {name.strip()!r}...: give it as 'name: value'", file=sys.stderr
            )
            return 2
        headers.append((name.strip(), value.strip()))
    options = RecordOptions(
        base_url=args.base_url,
        route=args.route,
        headers=headers,
        model=args.model,
        out_dir=args.out if args.out or args.accept else suite.root / PENDING,
        accept=args.accept,
        timeout=args.timeout,
        deadline=args.deadline,
        max_bytes=args.max_bytes,
    )
    if args.route:
        route = suite.route(args.route)  # an unknown route is a ProfileError naming the known
        shown = ", ".join(f"{name}: {_masked(value)}" for name, value in headers)
        print(f"route {route.key} ({route.kind})" + (f", headers {shown}" if shown else ""))
    todo, missing = [], []
    for provider, _scenario, cell in suite.cells(args.provider, args.scenario):
        if cell.not_applicable:
            print(f"n/a  {cell.id}: {' '.join(cell.not_applicable.split())}")
        elif args.skip_missing_keys and not options.environ.get(provider.key_env):
            if provider.key_env not in missing:
                missing.append(provider.key_env)
                print(f"skip {provider.key}: {provider.key_env} is not set")
        else:
            todo.append((provider, cell))
    for provider in {provider.key: provider for provider, _cell in todo}.values():
        try:
            route_for(suite, provider, options)  # refused before anything is sent
        except RecordError as exc:
            print(f"toolcall: {exc}", file=sys.stderr)
            return 2
    runs: dict[str, list[Recorded]] = {}
    failed: list[str] = []
    label = f"@{args.route}" if args.route and args.route != DIRECT else ""
    for number, (provider, cell) in enumerate(todo, start=1):
        print(
            f"[{number}/{len(todo)}] {provider.key}{label}/{cell.scenario} ...", end=" ", flush=True
        )
        started = time.monotonic()
        try:
            recorded = record_cell(suite, provider, cell, options)
        except RecordError as exc:
            failed.append(cell.id)
            print("failed", flush=True)
            print(f"FAIL {exc}", file=sys.stderr, flush=True)
            continue
        seconds = time.monotonic() - started
        print(f"wrote {_shown(recorded.path, suite)} ({recorded.size} bytes, {seconds:.1f}s)")
        runs.setdefault(provider.key, []).append(recorded)
    for recorded in (r for found in runs.values() for r in found if r.wrong_model):
        failed.append(f"{recorded.provider}/{recorded.scenario}")
        print(f"MODEL {recorded.provider}/{recorded.scenario}: {recorded.wrong_model}")
    if runs and not args.accept and not args.out:
        print(
            f"nothing committed changed: the cassettes are under {PENDING}/ "
            "(make record ... ACCEPT=1 records into cassettes/)"
        )
    drifted = [r for recorded in runs.values() for r in recorded if r.drift]
    for recorded in drifted:
        routed = recorded.route != DIRECT
        print(
            f"DRIFT {recorded.provider}{'@' + recorded.route if routed else ''}/"
            f"{recorded.scenario}: the stream differs from the profile"
            + (" and the route's changes" if routed else "")
        )
        for quirk, want, got in recorded.drift:
            print(f"  quirks.{quirk}: declared {want!r}, observed {got!r}")
    if args.route and args.route != DIRECT:
        return _accept_route(suite, args, runs, todo, failed, drifted)
    changes = [accept.plan(suite, suite.providers[key], found) for key, found in runs.items()]
    if changes and args.accept:
        try:
            accept.apply(suite.root / "providers.yaml", changes)
        except ProfileError as exc:
            print(f"toolcall: {exc}", file=sys.stderr)
            print("the cassettes are written; the change that was refused, to merge by hand:")
            print(accept.as_yaml(changes).rstrip())
            return 2
        print(f"accepted into {_shown(suite.root / 'providers.yaml', suite)}:")
        print(accept.as_yaml(changes).rstrip())
    elif changes and not args.out:
        print("to accept, record again with --accept (make record ... ACCEPT=1), or merge this")
        print("into providers.yaml (null removes an override):")
        print(accept.as_yaml(changes).rstrip())
    if not todo:
        why = f"no keys set: {', '.join(missing)}" if missing else "every selected cell is n/a"
        warning = f"checked 0 providers ({why}); nothing was recorded or compared"
        print(f"WARNING: {warning}")
        if os.environ.get("GITHUB_ACTIONS") == "true":
            print(f"::warning title=toolcall record::{warning}")
        return 0 if missing else 2
    return _checked(args, runs, todo, failed, drifted, missing)


def _checked(
    args: argparse.Namespace,
    runs: dict[str, list[Any]],
    todo: list[tuple[Any, Any]],
    failed: list[str],
    drifted: list[Any],
    missing: list[str],
) -> int:
    """The closing line of a recording run, per provider and route, and its exit code."""
    cells = sum(len(found) for found in runs.values())
    route = args.route or DIRECT
    checked = sorted({f"{provider.key}@{route}" for provider, _cell in todo})
    print(
        f"checked {len(checked)} provider(s) ({', '.join(checked)}): {cells} cell(s) recorded, "
        f"{len(failed)} failed, {len(drifted)} drifted"
        + (" (accepted)" if args.accept and drifted else "")
        + (f"; skipped, no key: {', '.join(missing)}" if missing else "")
    )
    if failed:
        return 1
    return 1 if drifted and not args.accept else 0


def _accept_route(
    suite: Suite,
    args: argparse.Namespace,
    runs: dict[str, list[Any]],
    todo: list[tuple[Any, Any]],
    failed: list[str],
    drifted: list[Any],
) -> int:
    """A run through a route: its changes go to routes.yaml, never to providers.yaml."""
    recorded = [r for found in runs.values() for r in found]
    change = accept.plan_route(suite, suite.route(args.route), recorded)
    path = suite.root / "routes.yaml"
    if change.changes and args.accept:
        accept.apply_routes(path, [change])
        print(f"accepted into {_shown(path, suite)} (providers.yaml untouched):")
        print(accept.route_yaml([change]).rstrip())
    elif change.changes and not args.out:
        print("to accept, record again with --accept (make record ... ACCEPT=1), or merge this")
        print("into routes.yaml (null removes a change):")
        print(accept.route_yaml([change]).rstrip())
    return _checked(args, runs, todo, failed, drifted, [])


def _masked(value: str) -> str:
    """A header value as printed: its length only, since a routing header may hold a key."""
    return f"<{len(value)} characters>"


def _shown(path: Path, suite: Suite) -> str:
    """A path relative to the suite when it is inside it (shorter in a terminal)."""
    try:
        return str(path.relative_to(suite.root))
    except ValueError:
        return str(path)


def _add_provider(suite: Suite, args: argparse.Namespace) -> int:
    from .add_provider import add_provider

    path = add_provider(
        suite, args.name, base_url=args.base_url, key_env=args.key_env, model=args.model
    )
    print(f"added providers.{args.name} to {path} (every scenario pending)")
    print(f"now: {args.key_env}=... make record PROVIDER={args.name} ACCEPT=1")
    print("and mark a scenario the server cannot do `not_applicable: <reason>`")
    return 0


def _write_json(path: Path, document: object) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _serve(suite: Suite, args: argparse.Namespace) -> int:
    """Serve until interrupted, after saying where and how to reach each provider."""
    from . import serve

    try:
        running = serve.start(
            suite,
            host=args.host,
            port=args.port,
            verbose=args.verbose,
            allowed_hosts=args.allow_host,
        )
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        if exc.errno == errno.EADDRINUSE:
            print(
                f"toolcall serve: {where} is already in use; stop what listens there, or "
                "choose another port with --port (0 picks a free one)",
                file=sys.stderr,
            )
        else:
            print(
                f"toolcall serve: cannot listen on {where}: {exc.strerror or exc}; "
                "check --host and --port",
                file=sys.stderr,
            )
        return 1
    print(f"toolcall serve: {running.base_url}  (Ctrl-C to stop)")
    for key in suite.providers:
        print(f"  {key:<9} base URL {running.url(key)}")
    print(
        "  pick a cassette by sending a scenario's request (scenarios.yaml) or with "
        "X-Toolcall-Scenario; faults with X-Toolcall-Fault: " + ", ".join(serve.FAULTS)
    )
    print(
        "  other wires: POST /v1/responses, /v1/messages, "
        "/v1beta/models/{model}:streamGenerateContent?alt=sse (without alt: a JSON array), "
        "/api/chat, the recording named by "
        "X-Toolcall-Scenario: wires/<wire>/<name> or a /<provider>/ prefix"
    )
    try:
        running.thread.join()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        serve.stop(running)
    return 0


def _publish(suite: Suite, args: argparse.Namespace) -> int:
    """Write the cassette; the expectation beside it is left to a person, on purpose."""
    if args.provider not in suite.providers:
        print(f"toolcall: unknown provider {args.provider!r}", file=sys.stderr)
        return 2
    suite.route(args.route)  # an unknown route is a ProfileError naming the known ones
    optional = {
        "relay": args.relay,
        "endpoint": args.endpoint,
        "extraction": args.extraction,
        "notes": args.notes,
    }
    provenance = {
        "source": {"repository": args.repository, "path": args.path, "commit": args.commit},
        "license": args.license,
        "model": args.model,
        "origin": args.origin,
        **{key: value for key, value in optional.items() if value},
    }
    if args.route != DIRECT:
        provenance["route"] = args.route
    if args.from_jsonl:
        provenance["source_format"] = "jsonl"
    cassette = recordings.build_cassette(
        args.file.read_bytes(), provenance, jsonl=args.jsonl, blank=args.blank_line
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


def _scan(suite: Suite, paths: list[Path]) -> int:
    from . import secrets

    variables = [p.key_env for p in suite.providers.values()]
    hits = secrets.scan(paths, secrets.key_values(variables))
    for hit in hits:
        print(hit)
    print(f"secret scan: {len(hits)} hit(s) in {', '.join(map(str, paths))}")
    return 1 if hits else 0


def _synthesize(suite: Suite, provider: str | None, scenario: str | None) -> int:
    from .synthesize import SynthesisError, synthesize

    try:
        paths, left_out = synthesize(suite, provider, scenario)
    except SynthesisError as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"wrote {path.relative_to(suite.root)}")
    for line in left_out:
        print(f"left out {line}")
    from .cassettes import cassette_path, evidence_kind

    for prov, _scen, cell in suite.cells(provider, scenario):
        kept = cassette_path(suite.cassettes, prov.key, cell.scenario)
        kind = evidence_kind(kept)
        if kind not in (None, "synthesized"):
            print(f"kept {kept.relative_to(suite.root)}: it is {kind} evidence, never re-rendered")
            if kind == "recorded" and cell.provenance.get("kind") != "recorded":
                print(
                    f"  providers.yaml does not say so yet: make record PROVIDER={prov.key} "
                    f"SCENARIO={cell.scenario} ACCEPT=1"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
