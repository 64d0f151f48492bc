"""Writing the site: every page from the inputs, into a folder of its own."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import case_page, gateways_page, implementation_page, matrix_page, overview, probes_page
from .html import case_href, implementation_href
from .inputs import Inputs


def pages(inputs: Inputs) -> dict[str, str]:
    """Every page by its path inside the site."""
    out = {
        "index.html": overview.render(inputs),
        "gateways.html": gateways_page.render(inputs.gateways),
        "probes.html": probes_page.render(inputs.probes, inputs.doctors),
    }
    matrix = inputs.matrix
    if matrix is None:
        matrix = {"implementations": [], "results": [], "unavailable": {}, "judged_by": ""}
    out["matrix.html"] = matrix_page.render(matrix)
    out.update(_implementations(matrix))
    out.update(_cases(matrix))
    return out


def _implementations(matrix: Mapping[str, Any]) -> dict[str, str]:
    return {
        implementation_href(i["name"]): implementation_page.render(
            i, [r for r in matrix["results"] if r["implementation"] == i["name"]]
        )
        for i in matrix["implementations"]
    }


def _cases(matrix: Mapping[str, Any]) -> dict[str, str]:
    cases = {c["id"]: c for c in matrix.get("cases", [])}
    results: dict[str, list[Mapping[str, Any]]] = {key: [] for key in cases}
    for result in matrix["results"]:
        key = result.get("id") or f"{result['provider']}/{result['scenario']}"
        results.setdefault(key, []).append(result)
    return {
        case_href(key): case_page.render(key, cases.get(key), mine) for key, mine in results.items()
    }


def write(inputs: Inputs, out: Path) -> list[Path]:
    """Write the site into `out`, whose earlier pages are removed first (a case gone from the
    run must not keep a page); returns the files written."""
    if out.is_dir():
        for old in ("cases", "implementations"):
            shutil.rmtree(out / old, ignore_errors=True)
    written = []
    for name, text in pages(inputs).items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
