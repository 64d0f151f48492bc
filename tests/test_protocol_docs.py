"""docs/PROTOCOL.md holds: its verdict words are the code's, its commands run as printed, and the
examples it shows fare as docs/MATRIX.md's generated table says.

Each example is run the way the doc prints it (`toolcall matrix --external ... --implementation
toolcall`, the Go one built first), in a folder holding a copy of `examples/` and the checkout's
environment as `.venv`, with the checkout's suite; its summary line must give the counts of the
table `make matrix-docs` wrote.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall.harness.matrix import run as matrix
from toolcall.harness.matrix import verdict

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
MATRIX = (ROOT / "docs" / "MATRIX.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def code_words() -> set[str]:
    """Every verdict label the code can give: each `Verdict("<label>", ...)` of the judge, and
    the words of the matrix (a skipped cell) and the judge (`pass`)."""
    found = {verdict.PASS, matrix.SKIPPED}
    for path in (verdict.__file__, matrix.__file__):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Verdict":
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    found.add(str(first.value))
                else:
                    assert isinstance(first, ast.Name), ast.dump(first)  # PASS, SKIPPED
    return found


def test_the_docs_list_every_verdict_word_the_code_gives_and_no_other() -> None:
    listed = set(re.findall(r"^- `([^`]+)`:", _section(PROTOCOL, "Verdicts"), re.MULTILINE))
    assert listed == code_words()
    assert {"pass", "crash", "skipped", "merged calls", "expect schema"} <= listed


def test_the_other_docs_point_to_the_protocol() -> None:
    assert "[PROTOCOL.md](PROTOCOL.md)" in MATRIX
    assert "docs/PROTOCOL.md" in (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")


def test_the_examples_say_what_the_doc_says_they_do() -> None:
    """Each example's header and handshake name the wires the doc gives it."""
    go = (ROOT / "examples" / "external_assembler.go").read_text(encoding="utf-8")
    js = (ROOT / "examples" / "external_assembler.mjs").read_text(encoding="utf-8")
    assert '"wires":          []string{"chat", "responses", "anthropic", "ollama"}' in go
    assert "bufio.NewReader(os.Stdin)" in go and "bufio.Scanner" not in go.split("package")[1]
    assert "const READERS = { chat, responses, anthropic, ollama };" in js
    for source in (go, js):
        assert "console.log" not in source and "fmt.Println(" not in source  # stdout: protocol


# -- the examples, run as the doc prints them ----------------------------------------------------


def _blocks() -> list[list[str]]:
    """The `sh` blocks of the examples, each as its command lines."""
    section = _section(PROTOCOL, "Three examples")
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [[line.strip() for line in b.splitlines() if line.strip()] for b in blocks]


def _table() -> dict[str, tuple[str, str]]:
    """docs/MATRIX.md's generated table: each column's program and its count over all wires."""
    section = MATRIX.split("<!-- matrix: generated", 1)[1].split("<!-- matrix: end -->")[0]
    rows = re.findall(r"^\| (\w+) \| ([^|]+) \|.* \| (\d+/\d+) \|$", section, re.MULTILINE)
    return {name: (program.strip(), count) for name, program, count in rows}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a user would run the commands: the examples, and `.venv` as the checkout's."""
    where = tmp_path_factory.mktemp("user")
    shutil.copytree(ROOT / "examples", where / "examples")
    (where / ".venv").symlink_to(Path(sys.prefix))
    return where


def _run(line: str, folder: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["TOOLCALL_ROOT"] = str(ROOT)  # the checkout's suite, read from outside it
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        ["bash", "-c", line], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("name", "tool"), [("go", "go"), ("js", "node"), ("naive", "python")])
def test_each_example_fares_as_the_docs_say(name: str, tool: str, folder: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"the {name} example needs {tool!r}, which is not installed")
    (lines,) = [b for b in _blocks() if re.search(f'--external "?{name}=', " ".join(b))]
    out = "".join(_run(line, folder) for line in lines)
    column = "python" if name == "naive" else name
    program, count = _table()[column]
    reference = _table()["toolcall"][1]
    assert f"passed: toolcall {reference}, {name} {count}" in out, out[-3000:]
    assert program in out  # who it said it is, at the handshake
    if name != "naive":
        assert "\nFAIL " not in out
