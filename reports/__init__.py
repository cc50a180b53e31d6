"""reports: render a harness run directory into report.html, junit.xml and summary.json.

    import reports
    path = reports.render("build/runs/latest")      # -> Path of report.html

`python -m reports render RUN_DIR` does the same from a shell (`make report RUN=<dir>`).
Modules: records (the chunk, mismatch and summary records and their loader), load (read a
run, the only reader of its directory), causes (likely-cause heuristic), describe (a mismatch's
display model), draw (the plots and object names the records carry), detail (one mismatch as
HTML, the only renderer of it), html / svg / coverage (the page; its CSS and script are
reports/assets/*), code_coverage (the code coverage section and code_coverage.html), summary
(summary.json, the one summariser), junit (JUnit XML), bits (raw-bit views).
"""
from __future__ import annotations

from pathlib import Path

from ground.files import write_atomic

from .load import ReportError, Run, load_run

__all__ = ["render", "render_run", "ReportError", "load_run", "Run"]

DETAIL_PER_GROUP = 20     # full details per chunk x check; later ones keep their one-line row
MAX_FULL_DETAILS = 1000   # full details in one report (each may carry a plot and context)


def build_views(run: Run, causes: dict, names: dict | None = None) -> list[dict]:
    """The display model of every mismatch, in run order (full details within the caps).

    names: {chunk id: {object index: name}} (reports.draw.object_names)."""
    from .describe import view
    names = names or {}
    views, per_group, full = [], {}, 0
    for ch in run.chunks:
        src_name = f"chunks/{ch['index']:05d}.json" if isinstance(ch.get("index"), int) else "chunks/"
        for i, m in enumerate(ch["mismatches"]):
            key = (ch["chunk"], m["check"])
            per_group[key] = per_group.get(key, 0) + 1
            # DECISION: full details (bit strips, context, plots) only for the first
            # DETAIL_PER_GROUP of each chunk x check and MAX_FULL_DETAILS overall, so a run where
            # a mutant breaks everything stays a few MB; the rest keep their one-line row, repro
            # and a pointer to the record in chunks/.
            want_full = per_group[key] <= DETAIL_PER_GROUP and full < MAX_FULL_DETAILS
            v = view(len(views), m, causes[id(m)], full=want_full,
                     names=names.get(ch["chunk"]))
            v["src"] = f"{src_name} mismatches[{i}]"
            full += 1 if want_full else 0
            views.append(v)
    return views


def render_run(run: Run, out_dir=None, plots: bool = True) -> Path:
    """Write report.html, junit.xml and summary.json for a loaded run (into out_dir if given)."""
    from . import html, junit, summary as summ
    from .causes import classify_run
    from .draw import add_series, object_names
    out = Path(out_dir) if out_dir else run.path
    out.mkdir(parents=True, exist_ok=True)
    if plots:
        run.notes.extend(add_series(run))
    causes = classify_run(run.chunks)
    summary = summ.complete(run, causes)
    views = build_views(run, causes, object_names(run))
    from . import code_coverage
    code = run.code_coverage
    page = html.render(run, summary, views, code)
    report = out / "report.html"
    write_atomic(report, lambda tmp: tmp.write_text(page, encoding="utf-8"), ReportError)
    if code is not None:
        cpage = code_coverage.page_html(code, summary.get("run_id"))
        write_atomic(out / code_coverage.PAGE, lambda tmp: tmp.write_text(cpage, encoding="utf-8"), ReportError)
    write_atomic(out / "junit.xml", lambda tmp: junit.write(run, summary, tmp), ReportError)
    summ.write(run, summary, out)
    return report


def render(run_dir, out_dir=None, plots: bool = True) -> Path:
    """Render run_dir: write report.html and junit.xml, complete summary.json; return report.html.

    plots: draw the value-over-time plots the chunk records carry (reports.draw). The run
    directory is read once (reports.load) and alone: neither the archive nor the model is needed."""
    return render_run(load_run(run_dir), out_dir, plots)
