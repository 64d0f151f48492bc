"""The library's modules import each other in one direction only: bytes flow one way.

Every import is read from the source (`ast`), those under `if TYPE_CHECKING:` and inside
functions included, since a circle hidden from the interpreter is still a circle in the design:
the module below cannot be understood, tested or replaced without the one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolcall

PACKAGE = Path(toolcall.__file__).parent


def library_modules() -> dict[str, Path]:
    """The library's modules by dotted name; the harness is a layer of its own above them."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "harness" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The library modules `name` imports, wherever in the file the import stands."""
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
            # `from . import x` may import a module x, or a name x of the package.
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = library_modules()
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
    assert "toolcall._wires.chat" in graph and "toolcall._events" in graph  # the walk found them
    found = circle(graph)
    assert found is None, "import circle: " + " -> ".join(found or [])


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
    above = {"toolcall._assembler", "toolcall._stream", "toolcall._watch"}
    above |= {name for name in graph if name.startswith("toolcall._wires")}
    for low in ("toolcall._events", "toolcall._turn", "toolcall._call"):
        assert not below(graph, low) & above, low
    assert not below(graph, "toolcall._watch") & (above - {"toolcall._watch"})


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
