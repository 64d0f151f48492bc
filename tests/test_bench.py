"""`make bench` must keep working: a smoke run on small streams, its report read back.

Times are never asserted here (they belong to the bench's own report, as ratios measured in the
same run); this checks that every shape, every column of ours, the growth rows, the memory rows
and the targets are produced, so a change that breaks the bench fails `make test`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_bench_runs_every_shape_and_reports_its_targets(tmp_path: Path) -> None:
    report = tmp_path / "bench.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench.py"),
            "--quick",
            "--no-peers",
            "--repeat",
            "1",
            "--markdown",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = report.read_text(encoding="utf-8")
    for shape in (
        "| 2 KB |",
        "| 8 calls x 8 KB |",
        "| 64 calls x 1 KB |",
        "| 64 KB obfuscation |",
        "| 256 KB text |",
        "| 256 KB reasoning + call |",
        "| 64 whole calls, no index |",
    ):
        assert shape in text, shape
    header = text.splitlines()[0]
    for column in ("whole", "live", "events", "partial"):
        assert f" {column} |" in header, column
    assert "| name in 1-char fragments | 4x |" in text
    assert "| extra_content, one key a delta | 4x |" in text
    assert "peak memory" in text and "| target | measured | met |" in text


def test_the_bench_says_its_progress_fits_a_terminal_and_explains_a_miss() -> None:
    bench = str(ROOT / "benchmarks" / "bench.py")
    done = subprocess.run(
        [sys.executable, bench, "--quick", "--no-peers", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "[1/9] 2 KB ... " in done.stderr and "[9/9] 64 whole calls, no index ... " in done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 100
    assert "targets: " in done.stdout
    # A miss is explained and points to the figures of record; no miss, no explanation.
    assert ("  MISS  " in done.stdout) == ("docs/SPEED.md" in done.stdout)
