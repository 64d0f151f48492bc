"""The package's modules import each other in one direction only: bytes flow one way.

Every import is read from the source (`ast`), those under `if TYPE_CHECKING:` and inside
functions included, since a circle hidden from the interpreter is still a circle in the design:
the module below cannot be understood, tested or replaced without the one above. That holds in
the library and in the harness above it, and the library never imports the harness.
"""

from __future__ import annotations

import ast
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
    assert (
        "toolcall._wires.chat" in graph and "toolcall._turn.events" in graph
    )  # the walk found them
    found = circle(graph)
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_no_import_circle_anywhere_in_the_package() -> None:
    graph = import_graph(package_modules())
    assert "toolcall.harness.checks.cells" in graph and "toolcall.harness.scrub" in graph
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


def test_events_the_call_state_and_the_turn_import_nothing_above_them() -> None:
    graph = import_graph()
    above = {"toolcall._assembler", "toolcall._stream", "toolcall._turn.call_watcher"}
    above |= {name for name in graph if name.startswith("toolcall._wires")}
    for low in ("toolcall._turn.events", "toolcall._turn.turn", "toolcall._calls.call_state"):
        assert not below(graph, low) & above, low
    assert not below(graph, "toolcall._turn.call_watcher") & (
        above - {"toolcall._turn.call_watcher"}
    )


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
