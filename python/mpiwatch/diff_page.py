"""A comparison as one HTML page (``mpiwatch --diff A B --html OUT``).

The page lists the changes (as ``--diff`` prints them, in tables) and shows
both runs side by side, each as the viewer page the client makes of a report
(``mpiwatch --report R.json --html``, client/web/), inside an ``iframe``
whose ``srcdoc`` holds it: one self-contained file, fetching nothing, like
the report's page. The viewer's own page comes from the client (the one
that ran us, ``MW_CLIENT``, else ``mpiwatch`` on ``PATH``), so it has one
maker.
"""
from __future__ import annotations

import html
import os
import shutil
import subprocess
import tempfile

from .diff_text import FORMAT, factor
from .report import ReportError

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data:")
STYLE = """body{font:14px system-ui,sans-serif;margin:1em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:first-child,td:nth-child(2),th{text-align:left}.sides{display:flex;gap:8px}
.sides section{flex:1;min-width:0}iframe{width:100%;height:1400px;border:1px solid #999}
.up{color:#a00}.down{color:#060}.note{color:#555}"""


def _viewer(report_path: str) -> str:
    """The viewer page of one report, made by the client."""
    client = os.environ.get("MW_CLIENT") or shutil.which("mpiwatch")
    if not client:
        raise ReportError("--html needs the mpiwatch client, which makes each run's page: "
                          "put its bin/ on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "page.html")
        p = subprocess.run([client, "--report", report_path, "--html", out, "--quiet"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise ReportError(f"{report_path}: the client could not make its page: "
                              f"{p.stderr.strip()}")
        with open(out, encoding="utf-8") as f:
            return f.read()


def _cells(e: dict) -> str:
    row = [html.escape(e["kind"]), html.escape(e["name"])]
    if e["side"] != "both":
        row += [f"only in {'A' if e['side'] == 'a only' else 'B'}"] + [""] * 3
    else:
        for m in ("time", "calls", "bytes"):
            c = e["change"][m]
            if c is None:
                row.append("-")
                continue
            cls = "up" if c["delta"] > 0 else "down" if c["delta"] < 0 else ""
            row.append(f'<span class="{cls}">{html.escape(FORMAT[m](e["a"][m]))} &rarr; '
                       f'{html.escape(FORMAT[m](e["b"][m]))} ({factor(c)})</span>'
                       + (" *" if m in e["above_noise"] else ""))
        row.append(f"{FORMAT['share'](e['a']['share'])} &rarr; {FORMAT['share'](e['b']['share'])}")
    return "<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>"


def page(d, paths: list[str]) -> str:
    """The HTML page of comparison ``d`` of the reports at ``paths`` (A, B)."""
    sides = [_viewer(p) for p in paths]
    rows = "".join(_cells(e) for e in d.changes) or \
        '<tr><td colspan="6">No change above noise.</td></tr>'
    basis = ("totals" if d.basis == "totals" else
             f"per-rank means: the runs have {d.a.get('ranks')} and {d.b.get('ranks')} ranks")
    frames = "".join(
        f'<section><h2>{side}: {html.escape(str(h["name"]))}</h2>'
        f'<iframe title="run {side}" srcdoc="{html.escape(p, quote=True)}"></iframe></section>'
        for side, h, p in (("A", d.a, sides[0]), ("B", d.b, sides[1])))
    return f"""<!DOCTYPE html>
<html lang="en" data-mw-diff-changes="{len(d.changes)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="generator" content="mpiwatch">
<title>mpiwatch: {html.escape(str(d.a['name']))} vs {html.escape(str(d.b['name']))}</title>
<style>{STYLE}</style>
</head>
<body>
<h1>mpiwatch: A {html.escape(str(d.a['name']))} vs B {html.escape(str(d.b['name']))}</h1>
<p class="note">Values are {html.escape(basis)}. * marks a change above noise.</p>
<h2>Largest changes</h2>
<table id="mw-diff-changes"><tr><th>kind</th><th>name</th><th>MPI time</th><th>calls</th>
<th>bytes</th><th>share of the run</th></tr>{rows}</table>
<div class="sides">{frames}</div>
</body>
</html>
"""
