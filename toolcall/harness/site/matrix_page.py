"""The matrix page: cases by implementations, filtered by wire, provider, route, kind and
verdict, and searched, in the reader's browser.

Ten thousand cells written as HTML would be a page of megabytes; here the cells travel as one
compact JSON document (names once each in tables, a cell one small number) that the page's own
script turns into rows and filters by hiding them, so the page's size grows by a few bytes a
cell. The script is plain JavaScript inline in the page: nothing to fetch, so it works from
`file://` with no network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .html import embedded, esc, implementation_href, page, slug

FILTERS = (("wire", 2), ("provider", 3), ("route", 4), ("kind", 5))

SCRIPT = r"""
(function () {
  var D = JSON.parse(document.getElementById("matrix-data").textContent);
  var MARK = {pass: "\u2713", fail: "\u2717", other: "\u2013"};
  var kinds = D.verdicts.map(function (v) {
    return v === "pass" ? "pass" : (v === "skipped" ? "other" : "fail");
  });
  var tbody = document.querySelector("#matrix tbody");
  var rows = [];
  var frag = document.createDocumentFragment();
  function cell(tr, text) {
    var td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  }
  D.rows.forEach(function (r) {
    var href = "cases/" + r[1] + ".html";
    var tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.dataset.href = href;
    var th = document.createElement("th");
    th.scope = "row";
    var link = document.createElement("a");
    link.href = href;
    link.tabIndex = -1;
    link.textContent = r[0];
    th.appendChild(link);
    tr.appendChild(th);
    for (var f = 2; f <= 5; f++) cell(tr, D.values[f - 2][r[f]]);
    var words = [r[0]];
    r[6].forEach(function (v, j) {
      var td = document.createElement("td");
      if (v < 0) {
        td.textContent = "\u2013 not run";
        td.className = "muted";
      } else {
        var a = document.createElement("a");
        a.href = href + "#impl-" + D.slugs[j];
        a.tabIndex = -1;
        a.textContent = MARK[kinds[v]] + " " + D.verdicts[v];
        td.className = "v-" + kinds[v];
        td.dataset.verdict = D.verdicts[v];
        var why = r[7] && r[7][j];
        if (why !== undefined) { a.title = D.reasons[why]; words.push(D.reasons[why]); }
        words.push(D.verdicts[v]);
        td.appendChild(a);
      }
      tr.appendChild(td);
    });
    rows.push({tr: tr, r: r, text: words.join(" ").toLowerCase()});
    frag.appendChild(tr);
  });
  tbody.appendChild(frag);
  var controls = {};
  ["wire", "provider", "route", "kind", "verdict", "search"].forEach(function (name) {
    controls[name] = document.getElementById("filter-" + name);
  });
  var count = document.getElementById("shown-count");
  function apply() {
    var want = [2, 3, 4, 5].map(function (f) {
      var v = controls[["wire", "provider", "route", "kind"][f - 2]].value;
      return v === "" ? -1 : Number(v);
    });
    var verdict = controls.verdict.value;
    var text = controls.search.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row) {
      var r = row.r, ok = true;
      for (var i = 0; i < 4 && ok; i++) ok = want[i] < 0 || r[i + 2] === want[i];
      if (ok && verdict !== "") {
        ok = r[6].some(function (v) {
          return v >= 0 && (verdict === "fail" ? kinds[v] === "fail" : D.verdicts[v] === verdict);
        });
      }
      if (ok && text) ok = row.text.indexOf(text) >= 0;
      row.tr.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = String(shown);
  }
  Object.keys(controls).forEach(function (name) {
    controls[name].addEventListener("input", apply);
    controls[name].addEventListener("change", apply);
  });
  tbody.addEventListener("keydown", function (e) {
    var tr = e.target.closest && e.target.closest("tr");
    if (!tr) return;
    if (e.key === "Enter") { window.location.href = tr.dataset.href; e.preventDefault(); }
    var step = e.key === "ArrowDown" ? "nextElementSibling"
      : (e.key === "ArrowUp" ? "previousElementSibling" : "");
    if (!step) return;
    var next = tr[step];
    while (next && next.hidden) next = next[step];
    if (next) { next.focus(); e.preventDefault(); }
  });
  apply();
})();
"""


def data(matrix: Mapping[str, Any]) -> dict[str, Any]:
    """The cells as the page's script reads them: every name once in a table, each row
    `[id, page, wire, provider, route, kind, [verdict per implementation, -1 for none],
    {implementation: reason}]` with numbers indexing those tables."""
    names = [i["name"] for i in matrix["implementations"]]
    column = {name: n for n, name in enumerate(names)}
    cases = {c["id"]: c for c in matrix.get("cases", [])}
    ids = list(cases)
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    for result in matrix["results"]:
        key = result.get("id") or f"{result['provider']}/{result['scenario']}"
        by_case.setdefault(key, []).append(result)
    ids += [key for key in by_case if key not in cases]
    tables: list[dict[str, int]] = [{} for _ in FILTERS]
    verdicts: dict[str, int] = {}
    reasons: dict[str, int] = {}
    rows = []
    for key in ids:
        mine = by_case.get(key, [])
        case = cases.get(key, {})
        first = mine[0] if mine else {}
        facts = [
            case.get("wire") or first.get("wire", "chat"),
            case.get("provider") or first.get("provider", ""),
            case.get("route", "unknown"),
            case.get("kind", "unknown"),
        ]
        row: list[Any] = [key, slug(key)]
        row += [table.setdefault(f, len(table)) for table, f in zip(tables, facts, strict=True)]
        cells = [-1] * len(names)
        why: dict[int, int] = {}
        for result in mine:
            j = column.get(result["implementation"])
            if j is None:
                continue
            cells[j] = verdicts.setdefault(result["verdict"], len(verdicts))
            if result["verdict"] != "pass" and result.get("reason"):
                why[j] = reasons.setdefault(result["reason"], len(reasons))
        row.append(cells)
        if why:
            row.append(why)
        rows.append(row)
    return {
        "verdicts": list(verdicts),
        "values": [list(t) for t in tables],
        "slugs": [slug(name) for name in names],
        "reasons": list(reasons),
        "rows": rows,
    }


def _select(name: str, options: Sequence[tuple[str, str]]) -> str:
    choices = "".join(f'<option value="{esc(v)}">{esc(label)}</option>' for v, label in options)
    return (
        f'<label for="filter-{name}">{esc(name)}<select id="filter-{name}">'
        f'<option value="">any {esc(name)}</option>{choices}</select></label>'
    )


def render(matrix: Mapping[str, Any]) -> str:
    cells = data(matrix)
    names = [i["name"] for i in matrix["implementations"]]
    selects = [
        _select(name, [(str(n), v) for n, v in enumerate(values)])
        for (name, _f), values in zip(FILTERS, cells["values"], strict=True)
    ]
    verdicts = [("fail", "any failure"), *((v, v) for v in cells["verdicts"])]
    selects.append(_select("verdict", verdicts))
    heads = "".join(
        f'<th scope="col"><a href="{implementation_href(n)}">{esc(n)}</a></th>' for n in names
    )
    body = (
        '<form class="filters" role="search" onsubmit="return false">'
        '<label for="filter-search">search<input id="filter-search" type="search" '
        'placeholder="case, verdict or reason" autocomplete="off"></label>'
        + "".join(selects)
        + "</form>"
        + f'<p aria-live="polite"><span id="shown-count">{len(cells["rows"])}</span> of '
        f'<span id="total-count">{len(cells["rows"])}</span> cases shown. '
        "Each cell says its verdict in words; Tab reaches the rows, Enter opens a case, "
        "the arrow keys move between rows.</p>"
        "<noscript><p>The matrix is drawn by the page's script; the implementation and case "
        "pages need none.</p></noscript>"
        '<table id="matrix"><thead><tr><th scope="col">case</th><th scope="col">wire</th>'
        '<th scope="col">provider</th><th scope="col">route</th><th scope="col">kind</th>'
        f"{heads}</tr></thead><tbody></tbody></table>"
        f'<script type="application/json" id="matrix-data">{embedded(cells)}</script>'
    )
    return page("Matrix", body, script=SCRIPT)
