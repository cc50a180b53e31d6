"""Coverage of the game's code: the report's section and its own page, code_coverage.html.

The harness writes `coverage_functions.json` into the run directory at the end of a run
(interfaces.md §4): per function reached from the harness's entry points, instructions
covered/total, branch directions covered/total and one line per instruction, [address,
executions, disassembly, taken, not taken] (the directions' counts of a conditional branch, else
null). The report's section shows the totals and one row per function; code_coverage.html holds
the annotated disassembly, one collapsed block per function, never-executed instructions marked
"!!" and a never-taken direction named on its branch's line. Static: no script, nothing fetched.
"""
from __future__ import annotations

from pathlib import Path

from corpus.names import printable

from .detail import e
from .records import ReportError

FILE = "coverage_functions.json"
COUNTS = "coverage.json"
PAGE = "code_coverage.html"
FORMAT = "eediff-coverage-functions/1"
FIGURES = ("insns_covered", "insns_total", "directions_covered", "directions_total")


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def checked(path: Path, d: dict) -> dict:
    """coverage_functions.json as reports.load read it from `path`, checked (a ReportError
    names the file and the member)."""
    if d.get("format") != FORMAT:
        raise ReportError(f"{path}: member 'format' is {str(d.get('format'))[:40]!r}, not {FORMAT!r}")
    funcs = d.get("functions")
    if not isinstance(funcs, list):
        raise ReportError(f"{path}: member 'functions' must be a list")
    for i, f in enumerate(funcs):
        where = f"{path}: functions[{i}]"
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise ReportError(f"{where} is not a function with a 'name'")
        for k in FIGURES:
            if not _count(f.get(k)):
                raise ReportError(f"{where} ({printable(f['name'])}): member '{k}' is not a count")
        lines = f.get("lines")
        if not isinstance(lines, list):
            raise ReportError(f"{where} ({printable(f['name'])}): member 'lines' must be a list")
        for j, ln in enumerate(lines):
            if not (isinstance(ln, list) and len(ln) == 5 and isinstance(ln[0], str) and _count(ln[1])
                    and isinstance(ln[2], str) and all(x is None or _count(x) for x in ln[3:])):
                raise ReportError(f"{where} ({printable(f['name'])}): lines[{j}] is not "
                                  "[address, executions, disassembly, taken, not taken]")
    return d


def totals(data: dict) -> tuple:
    """(instructions covered, total, directions covered, total) over every function."""
    fs = [f for f in data["functions"] if not f.get("served")]
    return tuple(sum(f[k] for f in fs) for k in FIGURES)


def _pct(a, b) -> str:
    return f"{100 * a / b:.1f}%" if b else "–"


def _figures(f) -> str:
    return (f'instructions {f["insns_covered"]}/{f["insns_total"]} ({_pct(f["insns_covered"], f["insns_total"])}), '
            f'branch directions {f["directions_covered"]}/{f["directions_total"]}')


def _total_line(data) -> str:
    ic, it, dc, dt = totals(data)
    n = sum(1 for f in data["functions"] if not f.get("served"))
    return (f'{n} functions: instructions {ic}/{it} ({_pct(ic, it)}), '
            f'branch directions {dc}/{dt} ({_pct(dc, dt)})')


def section_html(data: dict | None, has_counts: bool = False) -> str:
    """The report's Code coverage section: totals and a row per function, linking to the page."""
    if data is None:
        if has_counts:
            return (f'<p class="note">The run has {COUNTS} but no {FILE} (its executable was not there '
                    'to disassemble): <code>.venv/bin/python -m harness coverage RUN</code> needs the executable too.</p>')
        return (f'<p class="note">The run counted no code coverage (no {COUNTS}: EEDIFF_CODE_COVERAGE=0, '
                'or the run did not finish).</p>')
    rows = []
    for k, f in enumerate(data["functions"]):
        name = f'<a href="{PAGE}#f{k}">{e(f.get("readable") or f["name"])}</a>'
        if f.get("served"):       # a hooked stub: the harness answers the call, the machine never runs it
            rows.append(f'<tr class="served"><td>{name}</td><td colspan="3">served by the harness '
                        '(a hooked stub; never run)</td></tr>')
            continue
        full = f["insns_covered"] == f["insns_total"] and f["directions_covered"] == f["directions_total"]
        rows.append(f'<tr class="{"ok" if full else "warn"}"><td>{name}</td>'
                    f'<td class="num">{f["insns_covered"]}/{f["insns_total"]}</td>'
                    f'<td class="num">{_pct(f["insns_covered"], f["insns_total"])}</td>'
                    f'<td class="num">{f["directions_covered"]}/{f["directions_total"]} '
                    f'({_pct(f["directions_covered"], f["directions_total"])})</td></tr>')
    return (f'<p>{e(_total_line(data))}. <a href="{PAGE}">Annotated disassembly</a> '
            '(never-executed instructions and never-taken branch directions marked).</p>'
            '<details class="note"><summary>Per function</summary><table class="grid-t"><tr><th>function</th>'
            '<th>instructions</th><th>covered</th><th>branch directions</th></tr>' + "".join(rows)
            + '</table></details>')


def line_html(ln) -> str:
    """One instruction's line as the harness's coverage command prints it, marked."""
    pc, n, text, t, nt = ln
    note, missing = "", []
    if t is not None:
        missing = [w for w, c in (("never taken", t), ("never not-taken", nt)) if not c]
        note = f"   [taken {t}, not taken {nt}{'; ' + ', '.join(missing) if missing else ''}]"
    s = e(f'{"  " if n else "!!"} {pc[2:] if pc.startswith("0x") else pc} {n:>8} {text}{note}')
    if not n:
        return f'<span class="miss">{s}</span>'
    if missing:
        return f'<span class="half">{s}</span>'
    return s


CSS = """body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#1f2328}
pre{font:12px/1.35 ui-monospace,monospace;margin:4px 0 8px 16px}
.miss{background:#ffebe9;color:#82071e}.half{background:#fff8c5}
details{border:1px solid #d0d7de;border-radius:4px;margin:3px 0;padding:2px 8px}
summary{cursor:pointer}summary.full{color:#1a7f37}.note{color:#57606a}"""


def page_html(data: dict, run_id=None) -> str:
    """code_coverage.html: the totals, then each function's annotated disassembly, collapsed."""
    parts = []
    for k, f in enumerate(data["functions"]):
        full = f["insns_covered"] == f["insns_total"] and f["directions_covered"] == f["directions_total"]
        body = "\n".join(line_html(ln) for ln in f["lines"])
        parts.append(f'<details id="f{k}"><summary{" class=full" if full else ""}>{e(f["name"])}: '
                     f'{e(_figures(f))}</summary><pre>{body}</pre></details>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>eediff code coverage · {e(run_id)}</title>
<style>{CSS}</style></head><body>
<h1>Code coverage <small>{e(run_id)}</small></h1>
<p>{e(_total_line(data))}; executable {e(data.get("image"))}.</p>
<p class="note">Per function reached from the harness's entry points: each line is the address, how often
the instruction ran and its disassembly; <span class="miss">!! never executed</span>;
<span class="half">a conditional branch with a direction never taken</span>. <a href="report.html">The report</a>.</p>
{"".join(parts)}
</body></html>
"""
