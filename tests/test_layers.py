"""The package's modules import each other in one direction only: bytes flow one way.

Every import is read from the source (`ast`), those under `if TYPE_CHECKING:` and inside
functions included, since a circle hidden from the interpreter is still a circle in the design:
the module below cannot be understood, tested or replaced without the one above. That holds in
the library and in the harness above it, and the library never imports the harness. The
library's packages are layers in the order of a byte's path (`LAYERS`): framing, fast paths and
calls at the bottom, the turn above them, then the assembler, the wire readers and the builder.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import toolcall

PACKAGE = Path(toolcall.__file__).parent
HARNESS = "toolcall.harness"


def package_modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of `package` (the harness included) by dotted name."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def is_harness(name: str) -> bool:
    return name == HARNESS or name.startswith(HARNESS + ".")


def library_modules() -> dict[str, Path]:
    """The library's modules by dotted name; the harness is a layer of its own above them."""
    return {name: path for name, path in package_modules().items() if not is_harness(name)}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `name` imports, wherever in the file the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from . import x` imports the module x if there is one, else the name x of the
            # package (its `__init__`).
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def import_graph(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """Who imports whom among `modules` (the library's by default)."""
    modules = library_modules() if modules is None else modules
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph`, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1 while its imports are walked, 2 once done
    for root in sorted(graph):
        if state.get(root):
            continue
        path = [root]
        stack = [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if state.get(following) == 1:
                return [*path[path.index(following) :], following]
            if not state.get(following):
                state[following] = 1
                path.append(following)
                stack.append(iter(sorted(graph[following])))
    return None


def test_the_circle_finder_finds_a_circle_and_nothing_else() -> None:
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle_among_the_library_modules() -> None:
    graph = import_graph()
    assert "toolcall._wires.chat" in graph and "toolcall._turn.events" in graph  # found them
    found = circle(graph)
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_no_import_circle_anywhere_in_the_package() -> None:
    graph = import_graph(package_modules())
    assert "toolcall.harness.checks.cells" in graph and "toolcall.harness.recording.scrub" in graph
    found = circle(graph)
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_the_library_never_imports_the_harness() -> None:
    graph = import_graph(package_modules())
    assert any(is_harness(name) for name in graph) and "toolcall._stream" in graph
    upward = {
        name: sorted(filter(is_harness, imported))
        for name, imported in graph.items()
        if not is_harness(name) and any(map(is_harness, imported))
    }
    assert upward == {}


def test_a_circle_in_the_files_is_found_however_its_imports_are_written(tmp_path: Path) -> None:
    """A package on disk whose circle goes through `from . import <module>`, an import inside a
    function and one under TYPE_CHECKING; and `from . import <name>` of the package's own
    `__init__`, which is an import of the package, not a circle through a module."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("VERSION = 1\n", encoding="utf-8")
    (package / "a.py").write_text("from . import VERSION, b\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from .c import x\n", encoding="utf-8")
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import y\n"
    (package / "c.py").write_text(typed, encoding="utf-8")
    graph = import_graph(package_modules(package))
    assert graph["pkg.a"] == {"pkg", "pkg.b"}
    assert circle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    (package / "c.py").write_text("x = 1\n", encoding="utf-8")
    assert circle(import_graph(package_modules(package))) is None


def below(graph: dict[str, set[str]], name: str) -> set[str]:
    """Every module `name` imports, directly or not."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for imported in graph[todo.pop()]:
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return seen


#: The library's layers, lowest first, in the order a byte's path draws them upward: each
#: package (or top-level module) imports only modules of its own and of the layers below it;
#: packages side by side in one layer import nothing of each other. A module of a package not
#: named here fails the test until it is given its place.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("toolcall._errors",),
    ("toolcall._json",),
    ("toolcall._framing", "toolcall._fast", "toolcall._calls"),
    ("toolcall._turn",),
    ("toolcall._call_table",),
    ("toolcall._assembler", "toolcall._options"),
    ("toolcall._wires",),
    ("toolcall._stream",),
    ("toolcall", "toolcall.schema"),
)


def unit(name: str) -> str:
    """The package or top-level module `name` belongs to: `toolcall._turn.events` is in
    `toolcall._turn`."""
    return ".".join(name.split(".")[:2])


def harness_unit(name: str) -> str:
    """The harness package or top-level module `name` belongs to: `toolcall.harness.suite.case`
    is in `toolcall.harness.suite`; the library below the harness is one unit, `toolcall`."""
    return ".".join(name.split(".")[:3]) if is_harness(name) else "toolcall"


def upward_imports(
    graph: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...] = LAYERS,
    unit: Callable[[str], str] = unit,
) -> list[str]:
    """Every import of `graph` that goes sideways or up the layers, or from or to a package
    that has no layer, as `importer -> imported`."""
    level = {name: at for at, layer in enumerate(layers) for name in layer}
    found = []
    for name, imported in sorted(graph.items()):
        here = level.get(unit(name))
        for other in sorted(imported):
            there = level.get(unit(other))
            if unit(other) == unit(name):
                continue
            if here is None or there is None or there >= here:
                found.append(f"{name} -> {other}")
    return found


def test_each_layer_of_the_library_imports_only_the_layers_below_it() -> None:
    graph = import_graph()
    assert {unit(name) for name in graph} == {name for layer in LAYERS for name in layer}
    assert upward_imports(graph) == []


#: The harness's packages by role, lowest first, above the library (`toolcall`, all of it one
#: unit here): the suite's data, reading a body, synthesizing, recording, the checks, serving,
#: the peers, the matrix, the reports and their site, the gateways, the probe, the doctor, the
#: commands, and the entry points (the pytest plugin and its suite, the CLI, `toolcall.harness`
#: whose `main` imports it).
HARNESS_LAYERS: tuple[tuple[str, ...], ...] = (
    ("toolcall",),
    ("toolcall.harness.background",),
    ("toolcall.harness.suite",),
    ("toolcall.harness.reading",),
    ("toolcall.harness.synthesize",),
    ("toolcall.harness.recording",),
    ("toolcall.harness.checks",),
    ("toolcall.harness.serving",),
    ("toolcall.harness.peers",),
    ("toolcall.harness.matrix",),
    ("toolcall.harness.reports",),
    ("toolcall.harness.site",),
    ("toolcall.harness.gateways",),
    ("toolcall.harness.probe",),
    ("toolcall.harness.doctor",),
    ("toolcall.harness.commands",),
    ("toolcall.harness.pytest_suite",),
    ("toolcall.harness.pytest_plugin",),
    ("toolcall.harness.cli",),
    ("toolcall.harness",),
)

#: The imports that still go against the harness's layers, each a module to split or move: the
#: case model (`suite.case`) stands above the checks, peers and replay it runs; the suite's
#: recordings and fingerprint read bodies through `reading`, whose modules name the suite's
#: cassettes; `reading.streams` cuts synthesized streams; `recording.record` checks what it
#: records; `matrix.docs` writes the docs from the conformance report; the gateways command
#: shares the commands' helpers; the pytest plugin takes `missing_extra` from the package's
#: `__init__`, whose `main` imports the CLI. A new one fails the test, and so does one that is
#: gone, so the list only shrinks.
HARNESS_CROSSINGS = frozenset(
    {
        "toolcall.harness.gateways.command -> toolcall.harness.commands.common",
        "toolcall.harness.matrix.docs -> toolcall.harness.commands.conformance",
        "toolcall.harness.matrix.docs -> toolcall.harness.reports.conformance",
        "toolcall.harness.pytest_plugin -> toolcall.harness",
        "toolcall.harness.reading.streams -> toolcall.harness.synthesize",
        "toolcall.harness.recording.record -> toolcall.harness.checks",
        "toolcall.harness.suite.case -> toolcall.harness.checks",
        "toolcall.harness.suite.case -> toolcall.harness.matrix.verdict",
        "toolcall.harness.suite.case -> toolcall.harness.peers",
        "toolcall.harness.suite.case -> toolcall.harness.reading.streams",
        "toolcall.harness.suite.case -> toolcall.harness.reading.wires",
        "toolcall.harness.suite.case -> toolcall.harness.recording.replay",
        "toolcall.harness.suite.case -> toolcall.harness.synthesize",
        "toolcall.harness.suite.fingerprint -> toolcall.harness.reading.walk",
        "toolcall.harness.suite.recordings -> toolcall.harness.reading.walk",
        "toolcall.harness.suite.recordings -> toolcall.harness.reading.wires",
    }
)


def test_each_package_of_the_harness_imports_only_the_layers_below_it() -> None:
    """Every harness module is in a package of `HARNESS_LAYERS` (a new flat module or package
    fails until it is given its place), and imports only below it, but for the crossings listed."""
    graph = import_graph(package_modules())
    units = {harness_unit(name) for name in graph}
    assert units == {name for layer in HARNESS_LAYERS for name in layer}
    upward = upward_imports(graph, HARNESS_LAYERS, harness_unit)
    assert not any(line.startswith("toolcall ->") for line in upward)  # the library: below
    assert sorted(set(upward) - HARNESS_CROSSINGS) == []
    assert sorted(HARNESS_CROSSINGS - set(upward)) == []


def test_the_layer_check_sees_an_import_up_sideways_or_out_of_the_layers() -> None:
    layers = (("p._low",), ("p._left", "p._right"), ("p._high",))
    graph = {
        "p._low.a": {"p._high.b"},  # up
        "p._left.a": {"p._right.b", "p._left.b", "p._low.a"},  # sideways, its own, down
        "p._left.b": set(),
        "p._right.b": set(),
        "p._high.b": {"p._other"},  # a package with no layer
        "p._other": set(),
    }
    assert upward_imports(graph, layers) == [
        "p._high.b -> p._other",
        "p._left.a -> p._right.b",
        "p._low.a -> p._high.b",
    ]


def test_the_events_and_the_turn_import_nothing_of_the_watcher_above_them() -> None:
    """Inside the turn's package: the watcher turns what the assembler did into events, so it
    imports the events and the partial view; they never import it."""
    graph = import_graph()
    for low in ("toolcall._turn.events", "toolcall._turn.turn", "toolcall._turn.partial_arguments"):
        assert "toolcall._turn.call_watcher" not in below(graph, low) | {low}, low


def test_the_builder_names_no_wire() -> None:
    """Wires are data in one table (`_wires.WIRES`); the builder only looks them up."""
    source = (PACKAGE / "_stream.py").read_text(encoding="utf-8")
    strings = {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and type(node.value) is str
    }
    from toolcall._wires import WIRES

    assert set(WIRES) == {"chat", "responses", "anthropic", "gemini", "ollama"}
    assert not strings & set(WIRES), strings & set(WIRES)


#: The longest a function of the package may be: one that must be scrolled to be read is cut
#: into steps with names.
LONGEST_FUNCTION = 80


def long_functions(folder: Path, limit: int = LONGEST_FUNCTION) -> list[str]:
    """Every function under `folder` longer than `limit` lines, as `path:line name (n lines)`."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_of_the_package_is_over_80_lines() -> None:
    assert long_functions(PACKAGE) == []


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(LONGEST_FUNCTION))
    (tmp_path / "long.py").write_text(f"async def long():\n{body}", encoding="utf-8")
    (tmp_path / "short.py").write_text("def short():\n    return 1\n", encoding="utf-8")
    assert long_functions(tmp_path) == [f"long.py:1 long ({LONGEST_FUNCTION + 1} lines)"]
