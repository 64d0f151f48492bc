"""End-to-end cost of toolcall against the cost of merely decoding the chunks.

The floor is stdlib `json.loads` of every chunk payload and nothing else, measured in the same run
on the same machine, so the ratios hold across machines while seconds do not. Each shape of real
traffic (`shapes.py`) is fed two ways: whole, as cassette replay hands a body over, and one SSE
event per `feed`, as a live socket delivers it (`live`), which is what users pay. `events` is the
live feed with events on, and `partial` is that plus the partial view of the arguments read after
every fragment, as a UI rendering a form filling in would.

Every wire (chat with OpenAI's `obfuscation`, Responses, Anthropic padded as recorded, Gemini
whole and Vertex `partialArgs`, Ollama) has rows of its own: one call of 1 KB, 64 KB, 256 KB and
1 MB on each, in a body shaped after one of its published recordings (`shapes.wire_call`),
against the same kind of floor, `json.loads` of every event's payload. There `view` is the
partial view read after every `ArgumentsDelta` as the README shows it
(`builder.partial_arguments(index)`), and the wire's own SDK runs beside (`wire_peers`); memory
is measured on each wire at 1 MB, as a multiple of the arguments' UTF-8 size.

The peers (the `peers` extra) run in the same process on the same streams, each as a ratio to the
same floor: the openai SDK's stream state, langchain-core's chunk merging and litellm's
`stream_chunk_builder` assemble whole turns; langchain-core's `parse_partial_json`, pydantic-core's
and jiter's partial modes re-parse the arguments buffer after every fragment, which is how the
peers show partial arguments. They start from the chunk payloads, as their SDKs would after
reading the SSE lines. A peer gets a time budget per stream; one that exceeds it is stopped,
shown as `>budget`, and not run on the larger streams of that kind.

`--line-ends` measures every wire's call of 64 KB and 1 MB with its lines ended by LF and by
CRLF, live and whole, and its peak memory at 1 MB (live, BMP text): a wire's rows are run on
the line ends its recordings use (`shapes.LINE_ENDS`), and this says what the other costs.

After the grid: time growth between sizes (linear is the size ratio), peak memory as a multiple
of the arguments' size, and each target of the library with its measured figure.

A full run takes minutes, so each shape is announced on standard error as it is measured; the
terminal gets tables that fit `WIDTH` columns and the targets it missed, each `MISS` explained
once; the `--markdown` report has every column and every target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import shapes
import wire_peers
from shapes import Stream
from timing import budgeted_best, interleaved_best

import toolcall
from toolcall.harness.peers import CHAT, Assembled, Implementation
from toolcall.harness.peers import Stream as PeerStream

KB = 1024
#: The terminal width the tables fit; the Markdown report has every column in one table.
WIDTH = 100
#: Said under the targets whenever one is missed.
MISS_MEANS = (
    "MISS: a figure over the library's own target in this run on this machine; a finding to\n"
    'compare with docs/SPEED.md ("The targets, as measured"), not a failed run.'
)


@dataclass(frozen=True)
class Shape:
    label: str
    stream: Stream
    kind: str  # "arguments" (peers run), "other", "wire" (its SDK runs), "probe" (growth only)
    #: For a "wire" shape, the wire's name in `shapes.WIRES`.
    wire: str = ""


def grid(quick: bool) -> list[Shape]:
    """The shapes the issue of speed is judged on; `quick` shrinks each for a smoke run."""
    k = 1 if quick else KB
    big = 16 * k if quick else KB * KB
    return [
        Shape("2 KB", shapes.calls(1, 2 * k), "arguments"),
        Shape("64 KB", shapes.calls(1, 64 * k), "arguments"),
        Shape("1 MB", shapes.calls(1, big), "arguments"),
        Shape("8 calls x 8 KB", shapes.calls(8, 8 * k), "arguments"),
        Shape("64 calls x 1 KB", shapes.calls(64, k), "arguments"),
        Shape("64 KB obfuscation", shapes.calls(1, 64 * k, obfuscation=True), "arguments"),
        Shape("256 KB text", shapes.text(256 * k), "other"),
        Shape(
            "256 KB reasoning + call",
            shapes.text(256 * k, key="reasoning_content", then_call=True),
            "other",
        ),
        Shape("64 whole calls, no index", shapes.whole_calls(64, k), "other"),
        *(
            Shape(f"{wire} {label}", shapes.wire_call(wire, size), "wire", wire)
            for wire in shapes.WIRES
            for label, size in wire_sizes(quick)
        ),
    ]


def wire_sizes(quick: bool) -> list[tuple[str, int]]:
    """The sizes of each wire's call: 1 KB to 1 MB (a sixty-fourth of each for a smoke run)."""
    k = 16 if quick else KB
    return [("1 KB", k), ("64 KB", 64 * k), ("256 KB", 256 * k), ("1 MB", KB * k)]


def probes(quick: bool) -> list[tuple[str, Shape, Shape, int]]:
    """Pairs of sizes whose times are compared, with the ratio a linear cost gives."""
    n = 10 if quick else 1000
    return [
        (
            "name in 1-char fragments",
            Shape("name 100n", shapes.name_fragments(100 * n), "probe"),
            Shape("name 400n", shapes.name_fragments(400 * n), "probe"),
            4,
        ),
        (
            "extra_content, one key a delta",
            Shape("extra 10n", shapes.extra_content_deltas(10 * n), "probe"),
            Shape("extra 40n", shapes.extra_content_deltas(40 * n), "probe"),
            4,
        ),
    ]


# -- what is timed ---------------------------------------------------------------------------


def floor(payloads: list[str]) -> None:
    """Decode every chunk with the stdlib and keep nothing."""
    loads = json.loads
    for payload in payloads:
        loads(payload)


def whole(body: bytes, backend: str, wire: str = "chat") -> None:
    toolcall.assemble(body, json_backend=backend, wire=wire)


def live(events: list[bytes], backend: str, wire: str = "chat") -> None:
    builder = toolcall.TurnBuilder(json_backend=backend, events=False, wire=wire)
    for event in events:
        builder.feed(event)
    builder.finish()


def live_events(events: list[bytes], wire: str = "chat") -> None:
    """Events on, each looked at and let go, as a UI consuming them does."""
    builder = toolcall.TurnBuilder(wire=wire)
    seen = 0
    for event in events:
        for _item in builder.feed(event):
            seen += 1
    builder.finish()


def live_partial(events: list[bytes], wire: str = "chat") -> None:
    """Events on, and each call's arguments kept up to date as a UI keeps a form: by applying
    each fragment's changes (`ArgumentsDelta.changes`), which costs what arrived (`live_view`
    reads `partial_arguments(index)` after every fragment instead)."""
    builder = toolcall.TurnBuilder(partial_arguments=True, wire=wire)
    forms: dict[int, dict[str, Any]] = {}
    for event in events:
        for item in builder.feed(event):
            if type(item) is toolcall.ArgumentsDelta:
                apply_changes(item.changes, forms.setdefault(item.index, {}))
    builder.finish()


def live_view(events: list[bytes], wire: str = "chat") -> None:
    """Events on, and the partial view read after every fragment, as the README's streaming
    example does (`show_form(index, builder.partial_arguments(index))`)."""
    builder = toolcall.TurnBuilder(partial_arguments=True, wire=wire)
    for event in events:
        for item in builder.feed(event):
            if type(item) is toolcall.ArgumentsDelta:
                builder.partial_arguments(item.index)
    builder.finish()


def apply_changes(changes: tuple[toolcall.ArgumentsChange, ...], form: dict[str, Any]) -> None:
    """What a UI does with the changes: set members, append to the text of strings (as a list
    of pieces, the way a text widget takes appended text)."""
    for change in changes:
        node: Any = form
        for step in change.path[:-1]:
            node = node[step]
        last = change.path[-1]
        if change.kind == "append":
            node[last].append(change.value)
        elif isinstance(node, list) and last == len(node):
            node.append([] if change.value == "" else change.value)
        else:
            node[last] = [] if change.value == "" else change.value


def peer_run(peer: Implementation, payloads: list[str]) -> Assembled:
    """What a peer's user pays from the same payloads: decoding the JSON, then the peer."""
    loads = json.loads
    events = [loads(payload) for payload in payloads]
    return peer.assemble(PeerStream.decoded(CHAT, b"", REQUEST, events))


REQUEST = {
    "messages": [{"role": "user", "content": "Write the file."}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "write",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
        }
    ],
}


def partial_peers() -> dict[str, Callable[[str], object]]:
    """The partial parsers the peers offer, each taking the arguments received so far."""
    found: dict[str, Callable[[str], object]] = {}
    try:
        from langchain_core.utils.json import parse_partial_json

        found["langchain partial"] = parse_partial_json
    except ImportError:
        print("langchain-core not installed: its partial parsing is skipped")
    try:
        import pydantic_core

        found["pydantic partial"] = partial(
            pydantic_core.from_json, allow_partial="trailing-strings"
        )
    except ImportError:
        print("pydantic-core not installed: its partial parsing is skipped")
    try:
        import jiter

        found["jiter partial"] = lambda text: jiter.from_json(
            text.encode(), partial_mode="trailing-strings"
        )
    except ImportError:
        print("jiter not installed: its partial parsing is skipped")
    return found


def partial_peer_run(parse: Callable[[str], object], payloads: list[str]) -> object:
    """A peer's way to a partial view: join the call's fragments, re-parse after every one."""
    loads = json.loads
    buffer = ""
    value: object = None
    for payload in payloads:
        choices = loads(payload)["choices"]
        calls = choices[0]["delta"].get("tool_calls") if choices else None
        if calls:
            fragment = calls[0]["function"].get("arguments")
            if fragment:
                buffer += fragment
                value = parse(buffer)
    return value


def same_calls(turn: toolcall.Turn, answer: Assembled) -> bool:
    """Whether a peer's answer is the library's: same names, same parsed arguments."""
    if answer.error is not None or len(answer.calls) != len(turn.tool_calls):
        return False
    try:
        theirs = [(c.name, json.loads(c.arguments)) for c in answer.calls]
    except ValueError:
        return False
    ours = [(c.function.name, a) for c, a in zip(turn.tool_calls, turn.arguments, strict=True)]
    return theirs == ours


#: The peers that assemble in this process. The HTTP clients of the matrix (`*-http`, the
#: JavaScript SDKs) are left out: their time is a socket's and Node's start-up, not assembly.
IN_PROCESS = ("openai-sdk", "langchain-core", "litellm")


def load_peers(wanted: bool) -> list[Implementation]:
    """The installed peers (the `peers` extra); the missing ones are named and skipped."""
    if not wanted:
        return []
    from toolcall.harness.peers import Unavailable, builtin

    peers = []
    for name, factory in builtin().items():
        if name not in IN_PROCESS:
            continue
        try:
            peers.append(factory())
        except Unavailable as exc:
            print(f"{name} not available, skipped: {exc}")
    return peers


def peak_memory(run: Callable[[], object]) -> int:
    """Peak bytes allocated while `run` runs, its input excluded (made before)."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- the run ---------------------------------------------------------------------------------


@dataclass
class Results:
    columns: list[str]
    cells: dict[tuple[str, str], str]
    ratios: dict[tuple[str, str], float]
    chunks: dict[str, int]
    growth: list[tuple[str, str, str]]
    memory: list[tuple[str, float]]
    targets: list[tuple[str, str, bool]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        help="seconds a peer gets per stream, all its runs together (default 10)",
    )
    parser.add_argument("--no-peers", action="store_true", help="measure the library only")
    parser.add_argument("--quick", action="store_true", help="small streams: a smoke run")
    parser.add_argument(
        "--wires", action="store_true", help="only the rows of every wire (1 KB to 1 MB)"
    )
    parser.add_argument(
        "--line-ends",
        action="store_true",
        help="only every wire's call of 64 KB and 1 MB, its lines ended by LF and by CRLF",
    )
    parser.add_argument("--markdown", type=Path, help="also write the tables as Markdown here")
    args = parser.parse_args()
    report = line_ends(args) if args.line_ends else markdown(run(args), args.budget)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(report, encoding="utf-8")
    return 0


#: The line ends `--line-ends` compares.
LINE_ENDS = {"LF": "\n", "CRLF": "\r\n"}


def line_ends(args: argparse.Namespace) -> str:
    """Every wire's call ended by each of `LINE_ENDS`: live and whole on the default backend,
    as ratios to the floor of the same payloads (measured in turns with them), and the peak
    memory of the largest, fed live, on the BMP text; printed and returned as one table."""
    sizes = wire_sizes(args.quick)[1::2]
    columns = [f"{column} {name}" for column in ("live", "whole") for name in LINE_ENDS]
    columns += [f"memory {name}" for name in LINE_ENDS]
    lines = ["| wire | size | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    print(lines[0], lines[1], sep="\n")
    for wire in shapes.WIRES:
        for label, size in sizes:
            progress(f"{wire} {label} ... ")
            cells: dict[str, str] = {}
            for name, end in LINE_ENDS.items():
                stream = shapes.wire_call(wire, size, line_end=end)
                runs: dict[str, Callable[[], object]] = {
                    "floor": partial(floor, stream.payloads),
                    "live": partial(live, stream.events, "auto", stream.wire),
                    "whole": partial(whole, stream.body, "auto", stream.wire),
                }
                best = interleaved_best(runs, args.repeat)
                for column in ("live", "whole"):
                    cells[f"{column} {name}"] = f"{best[column] / best['floor']:.2f}x"
                if (label, size) == sizes[-1]:
                    bmp = shapes.wire_call(wire, size, astral=False, line_end=end)
                    peak = peak_memory(partial(live, bmp.events, "auto", bmp.wire))
                    cells[f"memory {name}"] = f"{peak / bmp.argument_bytes:.1f}x"
            row = [cells.get(column, "") for column in columns]
            lines.append(f"| {wire} | {label} | " + " | ".join(row) + " |")
            progress("done\n")
            print(lines[-1])
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> Results:
    # `auto`, what a caller gets by default: orjson for events, jiter for long ones (the `fast`
    # extra); `stdlib` beside it.
    backends = ["stdlib"]
    try:
        import jiter  # noqa: F401
        import orjson  # noqa: F401

        backends.append("auto")
    except ImportError:
        print("orjson or jiter not installed: the fast backend is skipped")
    default = backends[-1]
    peers = load_peers(not args.no_peers)
    partials = {} if args.no_peers else partial_peers()
    sdks, unavailable = wire_peers.load(not args.no_peers)
    for name, reason in unavailable.items():
        print(f"{name} not available, skipped: {reason}")
    ours = ["whole", "live", "whole stdlib", "live stdlib", "events", "partial"]
    if default == "stdlib":
        ours = ["whole", "live", "events", "partial"]
    columns = [*ours, "view", *(p.name for p in peers), *partials]
    columns += list(dict.fromkeys(sdk.name for sdk in sdks))
    print(f"default backend: {default}; every figure is a ratio to the stdlib floor")
    results = Results(columns, {}, {}, {}, [], [], [])
    over: set[str] = set()
    seconds: dict[tuple[str, str], float] = {}
    floor_ms: dict[str, float] = {}
    shapes_run = [s for s in grid(args.quick) if s.kind == "wire" or not args.wires]
    for number, shape in enumerate(shapes_run, start=1):
        began = time.monotonic()
        progress(f"[{number}/{len(shapes_run)}] {shape.label} ... ")
        stream = shape.stream
        events = stream.events
        results.chunks[shape.label] = len(stream.payloads)
        repeat = args.repeat if len(stream.payloads) < 100_000 else max(2, args.repeat // 2)
        runs: dict[str, Callable[[], object]] = {
            "floor": partial(floor, stream.payloads),
            "whole": partial(whole, stream.body, default, stream.wire),
            "live": partial(live, events, default, stream.wire),
            "events": partial(live_events, events, stream.wire),
            "partial": partial(live_partial, events, stream.wire),
        }
        if "whole stdlib" in columns:
            runs["whole stdlib"] = partial(whole, stream.body, "stdlib", stream.wire)
            runs["live stdlib"] = partial(live, events, "stdlib", stream.wire)
        best = interleaved_best(runs, repeat)
        for name in ours:
            seconds[(shape.label, name)] = best[name]
            results.ratios[(shape.label, name)] = best[name] / best["floor"]
            results.cells[(shape.label, name)] = f"{best[name] / best['floor']:.2f}x"
        if shape.kind == "arguments":
            turn = toolcall.assemble(stream.body)
            for peer in peers:
                _peer_cell(
                    results,
                    seconds,
                    over,
                    shape,
                    peer.name,
                    args,
                    partial(peer_run, peer, stream.payloads),
                    runs["floor"],
                    lambda answer, turn=turn: same_calls(turn, answer),
                )
            single = len(turn.tool_calls) == 1
            for name, parse in partials.items():
                if not single:
                    results.cells[(shape.label, name)] = "-"
                    continue
                _peer_cell(
                    results,
                    seconds,
                    over,
                    shape,
                    name,
                    args,
                    partial(partial_peer_run, parse, stream.payloads),
                    runs["floor"],
                    lambda answer, turn=turn: answer == turn.arguments[0],
                )
        if shape.kind == "wire":
            _wire_cells(results, seconds, over, shape, args, runs["floor"], best["floor"], sdks)
        floor_ms[shape.label] = best["floor"] * 1000
        progress(f"{time.monotonic() - began:.0f} s\n")
    _grids(results, ours, floor_ms)
    if over:
        print(f"'>budget': stopped after {args.budget:g} s, and not run on larger streams")
    progress("time growth ... ")
    began = time.monotonic()
    _growth(results, seconds, args)
    progress(f"{time.monotonic() - began:.0f} s\n")
    print("\npeak memory, as a multiple of the arguments' UTF-8 size:")
    _memory(results, shapes_run, seconds, args.quick)
    _targets(results)
    return results


def _wire_cells(
    results: Results,
    seconds: dict[tuple[str, str], float],
    over: set[str],
    shape: Shape,
    args: argparse.Namespace,
    run_floor: Callable[[], object],
    floor_seconds: float,
    sdks: list[wire_peers.WirePeer],
) -> None:
    """A wire's row beyond the live feed: the partial view read after every fragment, and the
    wire's own SDK. Each gets a budget, so a view that grows quadratically costs the budget and
    is not run on the larger streams of its wire: the peers' budget, or for the view ten times
    the floor a run, if that is more (a linear view of a megabyte takes seconds on a busy
    machine)."""
    stream = shape.stream
    turn = toolcall.assemble(stream.body, wire=stream.wire)
    ours = [(c.function.name, a) for c, a in zip(turn.tool_calls, turn.arguments, strict=True)]
    view_key = f"{shape.wire} view"
    if view_key in over:
        results.cells[(shape.label, "view")] = ">budget"
    else:
        budget = max(args.budget, 10 * args.repeat * floor_seconds)
        timing = budgeted_best(
            partial(live_view, stream.events, stream.wire), run_floor, args.repeat, budget
        )
        if timing.best is None:
            over.add(view_key)
            results.cells[(shape.label, "view")] = ">budget"
        else:
            seconds[(shape.label, "view")] = timing.best
            results.ratios[(shape.label, "view")] = timing.best / timing.floor
            results.cells[(shape.label, "view")] = f"{timing.best / timing.floor:.2f}x"
    for sdk in sdks:
        if sdk.wire == shape.wire:
            _peer_cell(
                results,
                seconds,
                over,
                shape,
                sdk.name,
                args,
                partial(sdk.run, stream.payloads),
                run_floor,
                lambda answer: answer == ours,
            )


def progress(text: str) -> None:
    """Say on standard error what is being measured, so a long run is never silent."""
    sys.stderr.write(text)
    sys.stderr.flush()


def _grids(results: Results, ours: list[str], floor_ms: dict[str, float]) -> None:
    """The figures as tables that fit `WIDTH` columns: ours on the default backend with the floor
    first, then the stdlib backend's and the peers' columns, as many to a table as fit (the
    Markdown report has them all in one)."""
    labels = list(results.chunks)
    extra = {(label, "chunks"): f"{results.chunks[label]:,}" for label in labels}
    extra |= {(label, "floor ms"): f"{floor_ms[label]:.1f}" for label in labels}
    default = [column for column in ours if not column.endswith(" stdlib")]
    groups = [["chunks", "floor ms", *default]]
    others = [column for column in results.columns if column not in default]
    if others:
        groups.append([])
    for column in others:
        if groups[-1] and _grid_width(results, labels, [*groups[-1], column], extra) > WIDTH:
            groups.append([])
        groups[-1].append(column)
    for group in groups:
        print()
        print("\n".join(_grid_lines(results, labels, group, extra)))


def _cell(results: Results, extra: dict[tuple[str, str], str], label: str, column: str) -> str:
    return extra.get((label, column)) or results.cells.get((label, column), "-")


def _grid_rows(
    results: Results, labels: list[str], columns: list[str], extra: dict[tuple[str, str], str]
) -> list[list[str]]:
    rows = [["stream", *columns]]
    rows += [[label, *(_cell(results, extra, label, c) for c in columns)] for label in labels]
    return rows


def _grid_widths(rows: list[list[str]]) -> list[int]:
    """The stream column one wider than its longest label, the others two wider."""
    widths = [max(len(row[i]) for row in rows) + 2 for i in range(len(rows[0]))]
    widths[0] -= 1
    return widths


def _grid_width(
    results: Results, labels: list[str], columns: list[str], extra: dict[tuple[str, str], str]
) -> int:
    return sum(_grid_widths(_grid_rows(results, labels, columns, extra)))


def _grid_lines(
    results: Results, labels: list[str], columns: list[str], extra: dict[tuple[str, str], str]
) -> list[str]:
    rows = _grid_rows(results, labels, columns, extra)
    widths = _grid_widths(rows)
    return [
        row[0].ljust(widths[0])
        + "".join(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))
        for row in rows
    ]


def _peer_cell(
    results: Results,
    seconds: dict[tuple[str, str], float],
    over: set[str],
    shape: Shape,
    name: str,
    args: argparse.Namespace,
    run_peer: Callable[[], Any],
    run_floor: Callable[[], object],
    right: Callable[[Any], bool],
) -> None:
    if name in over:
        results.cells[(shape.label, name)] = ">budget"
        return
    try:
        timing = budgeted_best(run_peer, run_floor, 3, args.budget)
    except Exception as exc:  # a peer's own failure is a cell, not the end of the run
        over.add(name)
        results.cells[(shape.label, name)] = f"error: {type(exc).__name__}"
        return
    if timing.best is None:
        over.add(name)
        results.cells[(shape.label, name)] = ">budget"
        return
    seconds[(shape.label, name)] = timing.best
    wrong = "" if right(timing.answer) else " (wrong)"
    results.cells[(shape.label, name)] = f"{timing.best / timing.floor:.1f}x{wrong}"


def _growth(
    results: Results, seconds: dict[tuple[str, str], float], args: argparse.Namespace
) -> None:
    """Time growth from the 64 KB stream to the 1 MB one (chat's, then each wire's live feed),
    and on the linearity probes."""
    linear = 4 if args.quick else 16
    for column in results.columns:
        small, large = "64 KB", "1 MB"
        if (small, column) in seconds and (large, column) in seconds:
            figure = f"{seconds[(large, column)] / seconds[(small, column)]:.1f}x"
        elif (small, column) in seconds:
            figure = f">{args.budget / seconds[(small, column)]:.0f}x (over budget)"
        else:
            continue
        results.growth.append((f"{small} -> {large}, {column}", f"{linear}x", figure))
    for wire in shapes.WIRES:
        small, large = f"{wire} 256 KB", f"{wire} 1 MB"
        for column in ("live", "events", "view"):
            if (small, column) not in seconds:
                continue
            if (large, column) in seconds:
                figure = f"{seconds[(large, column)] / seconds[(small, column)]:.1f}x"
            else:
                figure = f">{args.budget / seconds[(small, column)]:.0f}x (over budget)"
            results.growth.append((f"{small} -> 1 MB, {column}", "4x", figure))
    for label, little, big, factor in probes(args.quick):
        times = interleaved_best(
            {
                "small": partial(live, little.stream.events, "stdlib"),
                "large": partial(live, big.stream.events, "stdlib"),
            },
            3,
        )
        results.growth.append((label, f"{factor}x", f"{times['large'] / times['small']:.1f}x"))
    print("\ntime growth (linear is the size ratio):")
    for label, linear_figure, figure in results.growth:
        print(f"  {label:<40} linear {linear_figure:>5}  measured {figure}")


def _memory(
    results: Results,
    shapes_run: list[Shape],
    seconds: dict[tuple[str, str], float],
    quick: bool,
) -> None:
    """Peak memory on each wire's largest stream, input excluded, as a multiple of the
    arguments' UTF-8 size (the size on the wire): fed live, with events, and with the partial
    view read after every fragment; then live and with events on the same stream without its
    emoji ("BMP text"), which the target is judged on.

    The arguments' `str` alone is more than their UTF-8 where they hold a character outside
    the BMP (the streams carry emoji): Python stores four bytes a character then, twice the
    two it stores for the Greek and Chinese of the same text, so holding the text and its
    parsed value is already over six times its UTF-8 before anything else. That multiple is
    shown beside it. A view that went over its time budget is not measured.
    """
    for wire in shapes.WIRES:
        largest = max(
            (s for s in shapes_run if s.wire == wire), key=lambda s: s.stream.argument_bytes
        )
        stream = largest.stream
        size = next(size for label, size in wire_sizes(quick) if largest.label.endswith(label))
        bmp = shapes.wire_call(wire, size, astral=False)
        runs: list[tuple[str, Stream, Callable[[], object]]] = [
            ("live", stream, partial(live, stream.events, "auto", stream.wire)),
            ("events", stream, partial(live_events, stream.events, stream.wire)),
            ("view", stream, partial(live_view, stream.events, stream.wire)),
            ("live, BMP text", bmp, partial(live, bmp.events, "auto", bmp.wire)),
            ("events, BMP text", bmp, partial(live_events, bmp.events, bmp.wire)),
        ]
        for label, measured, target in runs:
            name = f"{largest.label}, {label}"
            if label == "view" and (largest.label, "view") not in seconds:
                print(f"  {name:<32} over its time budget, not measured")
                continue
            turn = toolcall.assemble(measured.body, wire=measured.wire)
            as_str = sum(sys.getsizeof(call.function.arguments) for call in turn.tool_calls)
            peak = peak_memory(target)
            utf8 = peak / measured.argument_bytes
            results.memory.append((name, utf8))
            print(f"  {name:<32} {utf8:.1f}x UTF-8 ({peak / as_str:.1f}x the arguments' str)")


def _targets(results: Results) -> None:
    ratio = results.ratios
    labels = [label for label in results.chunks if label.split()[0] not in shapes.WIRES]
    checks: list[tuple[str, float, float]] = []
    for label in labels:
        checks.append((f"{label}: live", ratio[(label, "live")], 0.6))
        checks.append((f"{label}: whole", ratio[(label, "whole")], 0.5))
        checks.append(
            (f"{label}: events / live", ratio[(label, "events")] / ratio[(label, "live")], 1.2)
        )
        checks.append(
            (f"{label}: partial / live", ratio[(label, "partial")] / ratio[(label, "live")], 2.0)
        )
    if ("64 calls x 1 KB", "live") in ratio:
        checks.append(
            (
                "64 calls / 8 calls, live (no cliff)",
                ratio[("64 calls x 1 KB", "live")] / ratio[("8 calls x 8 KB", "live")],
                1.25,
            )
        )
    for label, figure in results.memory:
        if label.endswith("BMP text"):
            checks.append((f"peak memory, {label} (x UTF-8)", figure, 4.0))
    for wire in shapes.WIRES:
        whole_call = wire in shapes.WHOLE_CALL_WIRES
        for size, _ in wire_sizes(False):
            label = f"{wire} {size}"
            if (label, "live") not in ratio:
                continue
            checks.append((f"{label}: live", ratio[(label, "live")], 1.5 if whole_call else 1.0))
            if not whole_call:
                checks.append((f"{label}: events", ratio[(label, "events")], 1.3))
    for label, linear, figure in results.growth:
        if label.endswith((", partial", ", view")):
            checks.append(
                (
                    f"growth {label}",
                    float(figure.rstrip("x").lstrip(">").split("x")[0]),
                    float(linear.rstrip("x")) * 17 / 16,
                )
            )
    for label, figure, limit in checks:
        results.targets.append((label, f"{figure:.2f} (target <= {limit:g})", figure <= limit))
    missed = [(label, figure, limit) for label, figure, limit in checks if figure > limit]
    met = len(checks) - len(missed)
    print(f"\ntargets: {met} met, {len(missed)} MISS (each in the --markdown report)")
    for label, figure, limit in missed:
        print(f"  MISS  {label:<46} {figure:.2f}  (target <= {limit:g})")
    if missed:
        print(MISS_MEANS)


def markdown(results: Results, budget: float) -> str:
    columns = results.columns
    lines = [
        "| stream | chunks | " + " | ".join(columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for label, count in results.chunks.items():
        row = [results.cells.get((label, c), "-") for c in columns]
        lines.append(f"| {label} | {count:,} | " + " | ".join(row) + " |")
    lines += ["", f"`>budget`: stopped after {budget:g} s and not run on larger streams.", ""]
    lines += ["| time growth | linear | measured |", "|---|---|---|"]
    lines += [f"| {label} | {linear} | {figure} |" for label, linear, figure in results.growth]
    lines += ["", "| peak memory | x arguments |", "|---|---|"]
    lines += [f"| {label} | {figure:.1f}x |" for label, figure in results.memory]
    lines += ["", "| target | measured | met |", "|---|---|---|"]
    lines += [
        f"| {label} | {figure} | {'yes' if met else 'no'} |"
        for label, figure, met in results.targets
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
