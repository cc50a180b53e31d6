"""The static, self-contained HTML report of a run (inline CSS, JS and SVG; nothing fetched).

The page; one mismatch's HTML is reports.detail.

Layout: verdict, run parameters and identity, checks, pass/fail per chunk, likely causes,
keyed-rotation drift, quirk coverage and counters, the failing-chunk table, and the
mismatch list. The mismatch list is paginated: page 1 is static HTML (readable without
JavaScript); the HTML of every mismatch, rendered by reports.detail, is embedded
gzip-compressed (base64 in the JSON of #eediff-data), and the inline script decompresses it
to show other pages and filtered lists, so 10,000 mismatches stay small and responsive.
The page's CSS and script are the files in reports/assets/, inlined here.
"""
from __future__ import annotations

import base64
import gzip
import json
from collections import Counter, defaultdict
from functools import cache
from importlib.resources import files

from corpus.names import counted, printable

from . import code_coverage, svg
from . import ledger
from .causes import CAUSES, RULES
from .detail import e, list_head_html, mismatch_html
from .coverage import counter_groups, coverage_rows
from .draw import object_trees
from .origins import groups_html
from .summary import bound_params, dropped, rotation_samples

PAGE_SIZE = 100


@cache
def asset(name: str) -> str:
    """reports/assets/<name> (package data), to inline into the page."""
    text = files(__package__).joinpath("assets", name).read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise ValueError(f"reports/assets/{name}: contains a closing </script> or </style> tag")
    return text


def bound_text(d: float, bound: float) -> str:
    """d against its bound, readable however far over: "73% of its bound", "1.6e5× its bound"."""
    r = d / bound
    if r != r:
        return "not comparable with its bound"
    if r == float("inf"):
        return f"{d:.3g} over a bound of {bound:.3g}"
    if r < 10:
        return f"{r:.0%} of its bound"
    if r < 1000:
        return f"{r:.0f}× its bound"
    mant, exp = f"{r:.1e}".split("e")
    return f"{mant}e{int(exp)}× its bound"


def rerun_command(params: dict) -> str | None:
    """The command that re-runs the run, as the harness recorded it (params.json "rerun",
    harness/commands.py): reports shows commands, it never builds one."""
    cmd = params.get("rerun")
    return str(cmd) if cmd else None


def _size(n) -> str:
    if not isinstance(n, int):
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _duration(s) -> str:
    if not isinstance(s, (int, float)):
        return "?"
    s = float(s)
    if s < 120:
        return f"{s:.1f} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min" if s >= 3600 else f"{s / 60:.1f} min"


def _params_html(run, summary) -> str:
    # DECISION: reports shows the SHA-256 the harness recorded in params.json and never hashes
    # the executable or the corpus itself (a disc image is gigabytes; the run already did it).
    p = run.params
    rows = [("run", summary.get("run_id")), ("started", p.get("started")),
            ("volume", f'{p["volume"].upper()} ({p.get("volume_name")}; from {p.get("volume_from")})'
             if p.get("volume") else None),
            ("seed", p.get("seed")), ("profile", p.get("profile")),
            ("float model", p.get("float_model")), ("N", p.get("n")), ("jobs", p.get("jobs")),
            ("duration", _duration(summary.get("seconds"))),
            ("chunks/minute", summary.get("chunks_per_minute")),
            ("chunks done", f'{summary.get("chunks_done")} of {summary.get("chunks_total")}'
             + ("" if summary.get("complete") else " (incomplete)")),
            ("command", None),
            ("chunks by origin", _origins_text(summary)),
            ("sample quirk classes", _sample_quirks_text(summary)),
            ("model", f'{summary["model"]} in place of the built-in reference' if summary.get("model") else None),
            ("shard", "{k} of {m} (selection of {selection_size} chunks)".format(**p["shard"])
             if p.get("shard") else None),
            ("merged from", "; ".join(f'shard {x.get("shard")}: {x.get("run")}' for x in p["merged_from"])
             if p.get("merged_from") else None)]
    cells = {k: e(x) for k, x in rows if x not in (None, "")}
    cmd = rerun_command(p)
    if cmd:
        cells["command"] = (f'<span class="runcmd"><code>{e(cmd)}</code><button type="button" '
                            f'class="copy" data-copy="{e(cmd)}">copy</button></span>')
    out = '<table class="kv">' + "".join(f'<tr><th>{k}</th><td>{cells[k]}</td></tr>'
                                         for k, _ in rows if k in cells) + '</table>'
    # The SHA-256 is one clipped line; the whole value is its title and its text (selecting the
    # cell copies all 64 digits). Copy buttons are kept for commands.
    ident = []
    for label, key in (("executable", "image"), ("corpus", "data")):
        d = p.get(key) or {}
        sha = d.get("sha256", "?")
        ident.append(f'<tr><th>{label}</th><td class="mono">{e(d.get("path", "?"))}</td>'
                     f'<td>{_size(d.get("size"))}</td><td class="mono sha" title="{e(sha)}">'
                     f'<span class="shav">{e(sha)}</span></td></tr>')
    out += ('<table class="grid-t"><tr><th></th><th>path</th><th>size</th><th>SHA-256</th></tr>'
            + "".join(ident) + '</table>')
    return out


def _origins_text(summary):
    """The archive's chunks and those built by code, apart (None when no chunk was built by code)."""
    arc, syn = summary.get("archive_chunks") or {}, summary.get("synthetic_chunks") or {}
    if not syn.get("done"):
        return None
    return (f'{arc.get("done")} from the archive ({arc.get("failed")} failed) · {syn["done"]} built by code: '
            f'synthetic::morph/, synthetic::edge/ ({syn.get("failed")} failed)')


def _sample_quirks_text(summary):
    """The quirk classes a sample met and those it missed (None for the whole pool)."""
    q = summary.get("sample_quirks")
    if not isinstance(q, dict):
        return None
    met, missed = q.get("covered") or [], q.get("missed") or []
    return (f'met {len(met)} of {len(met) + len(missed)}: {", ".join(met) or "none"}; '
            f'missed: {", ".join(missed) or "none"}')


def _n(count, noun: str) -> str:
    count = count or 0
    plural = noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")
    return f"{count:,} {noun if count == 1 else plural}"


# The counters that say what a run compared (checks.md §2.4, §4.3, §6.4, §7.6, §5), in order.
PROOF_COUNTERS = ("cases", "single-value rotations", "keyed rotations", "material cases",
                  "multistep checks", "steps", "object matrices", "morph states", "note steps",
                  "notes delivered", "morph cases", "F_Obj poses")


def _proof_html(summary) -> str:
    """One line naming what the run compared, so a green night says what it proved."""
    counters = summary.get("counters") or {}
    parts = [f"{_num(counters[k])} {k}" for k in PROOF_COUNTERS if counters.get(k)]
    if not parts:
        return ""
    return f'<p class="proof">Compared: {e(" · ".join(parts))}.</p>'


def _cards_html(summary) -> str:
    """The headline numbers, readable at a glance."""
    w = summary.get("worst_keyed_rotation") or {}
    worst = "–"
    sub = "no keyed rotations"
    if isinstance(w.get("d"), (int, float)):
        worst = f'{w["d"]:.3g}'
        sub = (bound_text(w["d"], w["bound"]) if isinstance(w.get("bound"), (int, float))
               and w["bound"] else "bound unknown")
    cards = [
        ("chunks", f'{summary.get("chunks_done")}/{summary.get("chunks_total")}',
         "complete" if summary.get("complete") else "incomplete", ""),
        ("failed chunks", summary.get("chunks_failed"), "", "bad" if summary.get("chunks_failed") else "ok"),
        ("mismatches", summary.get("mismatches"), "", "bad" if summary.get("mismatches") else "ok"),
        ("harness errors", summary.get("errors"), "", "bad" if summary.get("errors") else "ok"),
        ("worst keyed rotation d", worst, sub,
         "bad" if w.get("bound") and w.get("d", 0) > w["bound"] else ""),
        ("duration", _duration(summary.get("seconds")),
         f'{summary.get("chunks_per_minute")} chunks/min' if summary.get("chunks_per_minute") else "", ""),
    ]
    return '<div class="cards">' + "".join(
        f'<div class="card {cls}"><div class="cv">{e(v)}</div><div class="cl">{e(label)}</div>'
        f'<div class="cs">{e(sub)}</div></div>' for label, v, sub, cls in cards) + '</div>' + \
        _proof_html(summary)


def _checks_html(summary) -> str:
    rows = []
    for c, s in summary.get("checks", {}).items():
        cls = "bad" if s["chunks_failed"] else "ok"
        rows.append(f'<tr class="{cls}"><td>{e(c)}</td><td class="num">{s["chunks"]}</td>'
                    f'<td class="num">{s["chunks_failed"]}</td><td class="num">{s["mismatches"]}'
                    f'</td><td>{"FAIL" if s["chunks_failed"] else "pass"}</td></tr>')
    if not rows:
        return '<p class="note">No check recorded any chunk.</p>'
    return ('<table class="grid-t checks-t"><tr><th>check</th><th>chunks</th><th>failed chunks</th>'
            '<th>mismatches</th><th></th></tr>' + "".join(rows) + '</table>')


def _grid_html(run, first_of_chunk) -> str:
    cells = []
    for ch in run.chunks:
        n = len(ch["mismatches"]) + dropped(ch)
        err = ch.get("error")
        cls = "err" if err else ("bad" if n else "ok")
        title = f'{ch.get("index")}: {ch["chunk"]}' + (f' — {counted(n, "mismatch")}' if n else "") + (
            f' — error {err.get("type")}' if err else "")
        if ch["chunk"] in first_of_chunk:
            cells.append(f'<a class="cell {cls}" href="#m{first_of_chunk[ch["chunk"]]}" '
                         f'data-chunk="{e(ch["chunk"])}" title="{e(title)}"></a>')
        else:
            cells.append(f'<span class="cell {cls}" title="{e(title)}"></span>')
    dense = " dense" if len(cells) > 400 else ""          # a nightly run: 4,091 cells
    return (f'<div class="cells{dense}">{"".join(cells)}</div><p class="note legend">'
            '<span class="cell ok"></span> pass <span class="cell bad"></span> mismatch '
            '<span class="cell err"></span> harness error — hover for the chunk, click to '
            'jump to its first mismatch.</p>')


def _causes_html(views, n_dropped=0) -> str:
    by = Counter(v["cause"] for v in views)
    checks = sorted({v["check"] for v in views})
    grid = defaultdict(Counter)
    for v in views:
        grid[v["cause"]][v["check"]] += 1
    head = "".join(f"<th>{e(c)}</th>" for c in checks)
    rows = []
    for cause in CAUSES:
        if not by[cause]:
            continue
        cells = "".join(f'<td class="num">{grid[cause][c] or ""}</td>' for c in checks)
        rows.append(f'<tr><td><a href="#" class="causelink" data-cause="{e(cause)}">{e(cause)}'
                    f'</a></td><td class="num">{by[cause]}</td>{cells}</tr>')
    rules = "".join(f"<li><b>{e(name)}</b>: {e(why)}</li>" for name, why in RULES)
    table = (f'<table class="grid-t"><tr><th>likely cause</th><th>all</th>{head}</tr>'
             + "".join(rows) + '</table>') if rows else '<p class="note">No mismatches.</p>'
    base = (f'<p class="note">Over the {len(views):,} mismatches kept in the chunk records; {n_dropped:,} more '
            'were counted past the per-chunk cap and have no cause here.</p>' if n_dropped and rows else "")
    return (base + table + '<details class="rules"><summary>How causes are guessed (first rule that '
            f'matches)</summary><ol>{rules}</ol></details>')


def _rotation_html(run, summary) -> str:
    # DECISION: every sample is drawn against the controller bound of checks.md §3 (scale 1).
    # Playback samples have a bound scaled by max(1, |s|); at scale <= 1 it is the same line,
    # above it they may lie over the line without failing (their mismatches say so).
    base, per_key = bound_params(run.params)
    w = summary.get("worst_keyed_rotation")
    out = []
    if w:
        ratio = (f', {bound_text(w["d"], w["bound"])} {w["bound"]:.3g}'
                 if isinstance(w.get("bound"), (int, float)) and w["bound"] else "")
        where = " · ".join(str(x) for x in (w.get("chunk"), w.get("track") is not None and
                                           f'track {w["track"]}', w.get("time") is not None and
                                           f't={w["time"]}', w.get("passed") is not None and
                                           f'passed {w["passed"]}') if x)
        out.append(f'<p>Worst keyed-rotation deviation <b>d = {w["d"]:.4g}</b>{e(ratio)} '
                   f'({e(where)}).</p>')
    else:
        out.append('<p class="note">No keyed-rotation deviation recorded in this run.</p>')
    samples = [(p, d, ch["chunk"]) for ch in run.chunks
               for p, d, *_ in rotation_samples(ch, base, per_key)]
    per_chunk_only = samples and not any(ch.get("rotation_deviation") for ch in run.chunks)
    for ch, m in run.mismatches:
        if isinstance(m.get("deviation"), (int, float)) and m.get("check") == "controllers":
            passed = (m.get("context") or {}).get("passed")
            if isinstance(passed, int):
                samples.append((passed, float(m["deviation"]), f'{ch["chunk"]} (mismatch)'))
    if samples:
        over = summary.get("rotation_over_bound", 0)
        what = ("chunks (each chunk's worst controller keyed rotation)" if per_chunk_only
                else "keyed-rotation samples")
        drawn = f" ({svg.SCATTER_LIMIT:,} drawn)" if len(samples) > svg.SCATTER_LIMIT else ""
        out.append(f'<p>{len(samples):,} {what}{drawn}; {over:,} above the checks.md §3 '
                   f'bound d ≤ {base:g} + {per_key:g}·passed(T). Points near the dashed line '
                   'are drift close to the formula; points above it fail.</p>')
        out.append(svg.rotation_scatter(samples, base, per_key))
    elif w:
        out.append('<p class="note">The run recorded no per-chunk (passed, d) samples '
                   '(chunk member "rotation_deviation"), so no drift plot.</p>')
    out.append(_tolerance_rule_html(run, base))
    return "".join(out)


def _tolerance_rule_html(run, base) -> str:
    """The playback 3x3 bound per element (docs/tolerances.md §1), with the run's playback
    matrix mismatches at their element's magnitude."""
    from .bits import parse_u32, u2f
    pts = []
    for ch, m in run.mismatches:
        if m.get("check") == "playback" and str(m.get("field", "")).startswith("matrix[") \
                and isinstance(m.get("deviation"), (int, float)):
            bits = parse_u32(m.get("expected"))
            if bits is not None:
                pts.append((abs(u2f(bits)), float(m["deviation"]), f'{ch["chunk"]} {m["field"]}'))
    return ('<h3>Playback 3×3: the bound per element</h3><p>Where the playback compares the 3×3 within '
            f'a tolerance, each element passes within the larger of the formula ({base:g} at no keys and '
            '|s| ≤ 1) and one ulp of the reference element, never below the float\'s own resolution '
            f'(docs/tolerances.md). {len(pts):,} playback matrix mismatches are drawn.</p>'
            + svg.tolerance_rule(pts, base))


def _coverage_html(summary) -> str:
    rows, missing = [], []
    for label, n, why in coverage_rows(summary.get("quirks") or {}, summary.get("counters") or {}):
        if n is None:
            missing.append(label)
            continue
        rows.append(f'<tr class="{"ok" if n else "warn"}"><td>{e(label)}</td>'
                    f'<td class="num">{e(_num(n))}</td><td>{e(why)}</td></tr>')
    out = ('<p class="note">How often each quirk of the animation engine was exercised; a zero '
           '(yellow) means this run proved nothing about it.</p><table class="grid-t"><tr>'
           '<th>quirk</th><th>times exercised</th><th>why it matters</th></tr>' + "".join(rows)
           + '</table>') if rows else '<p class="note">The run recorded no quirk counts.</p>'
    if missing:
        out += (f'<details class="note"><summary>{len(missing)} known quirks not recorded by '
                f'this run</summary>{e(", ".join(missing))}.</details>')
    groups = counter_groups(summary.get("counters") or {})
    if groups:
        out += '<h3>Counters</h3><div class="counters">'
        for g, items in groups:
            out += (f'<table class="grid-t"><tr><th colspan="2">{e(g)}</th></tr>' + "".join(
                f'<tr><td>{e(k)}</td><td class="num">{e(_num(v))}</td></tr>' for k, v in items)
                + '</table>')
        out += '</div>'
    return out


def _num(v):
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.4g}"
    return f"{int(v):,}" if isinstance(v, (int, float)) else v


def _chunks_html(run, views_by_chunk, first_of_chunk) -> str:
    rows = []
    for ch in run.chunks:
        vs = views_by_chunk.get(ch["chunk"], [])
        err = ch.get("error")
        extra = dropped(ch)
        if not vs and not err and not extra:
            continue
        checks = sorted({v["check"] for v in vs})
        causes = ", ".join(f"{c} ({n})" for c, n in Counter(v["cause"] for v in vs).most_common(3))
        link = (f'<a href="#m{first_of_chunk[ch["chunk"]]}" data-chunk="{e(ch["chunk"])}">'
                f'{e(ch["chunk"])}</a>') if ch["chunk"] in first_of_chunk else e(ch["chunk"])
        errtxt = f'{err.get("type")}: {err.get("message")}' if err else ""
        rows.append(f'<tr><td class="num">{e(ch.get("index"))}</td><td>{link}</td>'
                    f'<td>{e(", ".join(checks))}</td><td class="num">{len(vs) + extra}</td>'
                    f'<td>{e(causes)}</td><td class="err-t">{e(errtxt)}</td>'
                    f'<td class="num">{float(ch.get("seconds") or 0):.2f}</td>'
                    f'<td>{copy_button(ch.get("repro"))}</td></tr>')
    if not rows:
        return '<p class="note">Every chunk passed.</p>'
    head = "".join(f'<th data-type="{t}">{h}</th>' for h, t in (
        ("#", "num"), ("chunk", "text"), ("checks", "text"), ("mismatches", "num"),
        ("likely causes", "text"), ("error", "text"), ("seconds", "num"),
        ("rerun chunk", "text")))
    return ('<input type="search" id="chunkfilter" placeholder="filter failing chunks…" '
            'aria-label="filter failing chunks"> <span class="note">Click a column to sort.</span>'
            f'<table class="grid-t sortable" id="chunktable"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(rows) + '</tbody></table>')


def _identity_text(ident) -> str:
    if not isinstance(ident, list) or not ident:
        return "none"
    return " ".join(str(x) for x in ident)


def _object_trees_html(run) -> str:
    """Each failing chunk's object tree (objects and world mismatches): the entries under the anm,
    each under the entry whose object it hangs from, with the node or object it holds."""
    trees = object_trees(run)
    if not trees:
        return ""
    parts = ["<h3>Object trees of the chunks with objects or world mismatches</h3>"]
    for chunk, rows in trees.items():
        held = {_identity_text(r.get("holds")): r for r in rows}
        children = defaultdict(list)
        for r in rows:
            up = r.get("parent")
            children["anm" if up is None or _identity_text(up) not in held else _identity_text(up)].append(r)

        def item(r, seen):
            me = _identity_text(r.get("holds"))
            label = (f'entry {e(r.get("entry"))}: {e(r.get("name") or r.get("object"))} '
                     f'<span class="note">holds {e(me)}, kind 0x{int(r.get("kind") or 0):04x}, '
                     f'flags {e(r.get("flags"))}{"" if r.get("parent") is not None else ", not hung"}</span>')
            kids = [] if me in seen else children.get(me, [])
            sub = "".join(item(k, seen | {me}) for k in kids if k is not r)
            return f"<li>{label}{f'<ul>{sub}</ul>' if sub else ''}</li>"

        roots = [r for r in children["anm"]]
        parts.append(f'<details><summary>{e(chunk)}: {len(rows)} entries</summary><ul class="tree">'
                     + "".join(item(r, frozenset()) for r in roots) + "</ul></details>")
    return "".join(parts)


def copy_button(cmd) -> str:
    """A copy button for a command the harness recorded (nothing when there is none)."""
    if not cmd:
        return ""
    return f'<button type="button" class="copy" data-copy="{e(cmd)}" title="{e(cmd)}">copy</button>'


def search_text(v: dict) -> str:
    """What the mismatch filter matches against, lowercased."""
    return " ".join(str(v.get(k) or "") for k in ("chunk", "field", "where", "check", "cause", "inferred")).lower()


def pages_payload(views: list[dict], rendered: list[str]) -> str:
    """Every mismatch as [chunk, check, cause, search text, HTML], as JSON, gzip, base64."""
    # chunk, check and cause as the page's data-chunk / option values read (printable)
    items = [[printable(str(v["chunk"])), printable(str(v["check"])), v["cause"], printable(search_text(v)), h]
             for v, h in zip(views, rendered)]
    raw = json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _mismatches_html(views, rendered, n_dropped=0, notes=()) -> str:
    notes_html = "".join(f'<p class="note">{e(n)}</p>' for n in notes[:20])
    if len(notes) > 20:
        notes_html += f'<p class="note">… and {len(notes) - 20} more notes.</p>'
    dropped_note = notes_html + (f'<p class="note">{n_dropped} further mismatches were counted by the harness '
                    'but not recorded (its per-chunk cap); rerun a chunk\'s repro to see them.</p>'
                    if n_dropped else "")
    if not views:
        return dropped_note or '<p class="note">No mismatches.</p>'
    checks = sorted({v["check"] for v in views})
    causes = [c for c in CAUSES if any(v["cause"] == c for v in views)]
    opts = lambda xs: "".join(f'<option value="{e(x)}">{e(x)}</option>' for x in xs)  # noqa: E731
    first = "".join(rendered[:PAGE_SIZE])
    pages = -(-len(views) // PAGE_SIZE)
    return (dropped_note + f'<div class="filters"><input type="search" id="mfilter" placeholder="filter: chunk, '
            f'field, object…" aria-label="filter mismatches"> <select id="mcheck"><option value="">'
            f'all checks</option>{opts(checks)}</select> <select id="mcause"><option value="">'
            f'all causes</option>{opts(causes)}</select> <span id="mchunk"></span></div>'
            f'<div class="pager"><button type="button" id="prev">◀ prev</button> '
            f'<span id="pageinfo">page 1 of {pages} · {counted(len(views), "mismatch", sep="")}</span> '
            f'<button type="button" id="next">next ▶</button> <button type="button" id="expand">'
            f'expand page</button></div>{list_head_html(_answered_by(views))}<div id="mlist">{first}</div>')


def _answered_by(views) -> str:
    """"model" when every mismatch shown holds a model's answer (bulk --model), else "reference"."""
    return "model" if views and all(v.get("by") == "model" for v in views) else "reference"


# status (reports.summary.status) -> (verdict text, CSS class)
VERDICTS = {"pass": ("PASS", "pass"), "mismatches": ("FAIL", "fail"), "errors": ("FAIL", "fail"),
            "bad members": ("FAIL: BAD MEMBERS", "fail"), "nothing compared": ("NOTHING COMPARED", "nothing"),
            "incomplete": ("INCOMPLETE", "incomplete"), "interrupted": ("INTERRUPTED", "incomplete")}
VERDICTS["left out"] = ("FAIL: RECORDS LEFT OUT", "fail")


def _bad_members_html(summary) -> str:
    """The archive members the run could not read: their chunks were not checked."""
    bad = summary.get("bad_members") or []
    if not bad:
        return ""
    allowed = summary.get("allow_bad_members")
    rows = "".join(f'<tr><td class="mono">{e(b.get("member"))}</td><td class="num mono">'
                   f'0x{int(b.get("offset") or 0):X}</td><td>{e(b.get("kind"))}</td>'
                   f'<td>{e(b.get("error"))}</td></tr>' for b in bad)
    return (f'<section id="bad-members" class="problems"><h2>{_n(len(bad), "bad archive member")}</h2>'
            f'<p>{"Allowed by --allow-bad-members: " if allowed else "The run fails: "}their chunks '
            'were not checked.</p><table class="grid-t"><tr><th>member</th><th>offset</th>'
            f'<th>kind</th><th>reason</th></tr>{rows}</table></section>')


def render(run, summary: dict, views: list[dict], code: dict | None = None) -> str:
    """The complete report page; code: the run's coverage_functions.json (Run.code_coverage)."""
    first_of_chunk: dict = {}
    views_by_chunk = defaultdict(list)
    for v in views:
        first_of_chunk.setdefault(v["chunk"], v["n"])
        views_by_chunk[v["chunk"]].append(v)
    failed = summary.get("chunks_failed", 0)
    verdict, vclass = VERDICTS[summary.get("status") or "pass"]
    problems = "".join(f"<li>{e(p)}</li>" for p in run.problems)
    problems += "".join(f"<li>Nothing compared: {e(p)}</li>" for p in summary.get("nothing_compared") or ())
    problems += "".join(f"<li>Left out: {e(p)}</li>" for p in summary.get("left_out") or ())
    headline = (f'{_n(summary.get("chunks_done"), "chunk")}, {_n(summary.get("mismatches"), "mismatch")} in '
                f'{_n(failed, "chunk")}, {_n(summary.get("errors"), "harness error")}')
    rendered = [mismatch_html(v) for v in views]
    # The data holds only numbers and base64: no name or value reaches the script element raw.
    data = json.dumps({"pageSize": PAGE_SIZE, "count": len(views),
                       "pages": pages_payload(views, rendered) if views else ""},
                      separators=(",", ":"))
    nav = "".join(f'<a href="#{i}">{t}</a>' for i, t in (
        ("run", "Run"), ("checks", "Checks"), ("origins", "Instructions"), ("causes", "Causes"), ("rotation", "Rotation drift"),
        ("coverage", "Coverage"), ("codecov", "Code coverage"), ("chunks", "Failing chunks"), ("mismatches", "Mismatches")))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>eediff {e(verdict)} · {e(summary.get("run_id"))}</title>
<script>{asset("error_hook.js")}</script>
<style>{asset("report.css")}</style></head>
<body>
<header><span class="verdict {vclass}">{e(verdict)}</span>
<h1>eediff report <small>{e(summary.get("run_id"))}</small></h1>
<p class="headline">{e(headline)}</p><nav>{nav}</nav></header>
<main>
{f'<ul class="problems">{problems}</ul>' if problems else ''}
{_bad_members_html(summary)}
{_cards_html(summary)}
<div class="cols">
<section id="run"><h2>Run</h2>{_params_html(run, summary)}</section>
<section id="checks"><h2>Checks</h2>{_checks_html(summary)}
{ledger.html(summary)}
<h3>Pass/fail per chunk</h3>{_grid_html(run, first_of_chunk)}</section>
</div>
<section id="origins"><h2>Mismatches by instruction</h2>{groups_html(run.chunks)}</section>
<section id="causes"><h2>Mismatches by likely cause</h2>{_causes_html(views, summary.get("mismatches_dropped") or 0)}</section>
<section id="rotation"><h2>Keyed-rotation drift</h2>{_rotation_html(run, summary)}</section>
<section id="coverage"><h2>Quirk coverage</h2>{_coverage_html(summary)}</section>
<section id="codecov"><h2>Code coverage</h2>{code_coverage.section_html(code, run.has_counts)}</section>
<section id="chunks"><h2>Failing chunks</h2>{_chunks_html(run, views_by_chunk, first_of_chunk)}
{_object_trees_html(run)}</section>
<section id="mismatches"><h2>Mismatches</h2>{_mismatches_html(views, rendered, summary.get("mismatches_dropped") or 0, run.notes)}</section>
</main>
<footer>Generated by <code>.venv/bin/python -m reports render</code>. Static page: nothing is fetched.</footer>
<script type="application/json" id="eediff-data">{data}</script>
<script>{asset("report.js")}</script>
</body></html>
"""
