"""Mismatches grouped by the game instruction that produced them, and provenance chains as HTML.

A mismatch the harness traced carries `provenance` (harness/provenance.py, interfaces.md §4): the
chain of instructions behind the compared word and its `origin` (the first differing step, else
the producer of the stored value). `groups(run)` counts the traced mismatches per origin address;
a chunk's untraced mismatches of the same check and field as a traced one are counted with it.
DECISION: a chunk's traced mismatches stand for its untraced ones of the same check and field
(the harness traces only a chunk's first few); a mismatch with no such traced sibling is counted
as untraced.
"""
from __future__ import annotations

import html
from collections import Counter
from typing import Dict, List, Tuple

from corpus.names import counted


def _origin(m) -> dict | None:
    p = m.get("provenance")
    return p.get("origin") if isinstance(p, dict) and isinstance(p.get("origin"), dict) else None


def groups(chunks) -> Tuple[List[dict], int, int]:
    """([{pc, symbol, insn, first_differs, count}] most first, total mismatches, untraced)."""
    counts: Counter = Counter()
    info: Dict[str, dict] = {}
    total = untraced = 0
    for ch in chunks:
        by_field = {}
        for m in ch.get("mismatches") or ():
            o = _origin(m)
            if o is not None:
                by_field.setdefault((m.get("check"), m.get("field")), o)
        for m in ch.get("mismatches") or ():
            total += 1
            o = _origin(m) or by_field.get((m.get("check"), m.get("field")))
            if o is None:
                untraced += 1
                continue
            counts[o["pc"]] += 1
            info.setdefault(o["pc"], o)
        total += ch.get("dropped_mismatches") or 0
        untraced += ch.get("dropped_mismatches") or 0
    out = [dict(info[pc], count=n) for pc, n in counts.most_common()]
    return out, total, untraced


def headline(chunks) -> str:
    """One line: 'N mismatches; T traced to an instruction (U not traced): P% of the traced from
    SYMBOL `insn` (pc)', or '' when none was traced. Every share states its base: a share of all
    mismatches read "4%" where 89% of those traced came from one instruction."""
    gs, total, untraced = groups(chunks)
    if not gs:
        return ""
    g = gs[0]
    traced = total - untraced
    pct = 100.0 * g["count"] / traced if traced else 0.0
    return (f"{counted(total, 'mismatch')}; {traced:,} traced to an instruction"
            + (f" ({untraced:,} not traced)" if untraced else "")
            + f": {pct:.0f}% of the traced from {g['symbol']} `{g['insn']}` ({g['pc']})"
            + ("" if g.get("first_differs") else " (the producer of the stored value)"))


def groups_html(chunks) -> str:
    gs, total, untraced = groups(chunks)
    if not gs:
        return "<p>No mismatch was traced to an instruction.</p>"
    e = html.escape
    rows = "".join(
        f'<tr><td class="num">{g["count"]:,}</td><td class="num">{100.0 * g["count"] / (total - untraced):.0f}%</td>'
        f'<td><code>{e(g["pc"])}</code></td><td><code>{e(g["symbol"])}</code></td>'
        f'<td><code>{e(g["insn"])}</code></td><td>{"first differing step" if g.get("first_differs") else "producer of the stored value"}</td></tr>'
        for g in gs)
    return (f'<p class="origin-headline">{e(headline(chunks))}</p>'
            f'<table class="origins"><tr><th>mismatches</th><th>share of the traced</th><th>pc</th><th>symbol</th>'
            f'<th>instruction</th><th>as</th></tr>{rows}</table>'
            + (f"<p>{counted(untraced, 'mismatch')} of {total:,} {'was' if untraced == 1 else 'were'} not traced "
               "(the harness traces a chunk's first few; one counts with a traced mismatch of its chunk, check and "
               "field).</p>" if untraced else ""))


def _values(vs) -> str:
    return ", ".join(f"{v['loc']}={v['hex']} ({v['float']})" for v in vs) or "-"


def chain_html(p: dict) -> str:
    """A provenance as annotated disassembly: one line per step, the first differing one marked."""
    e = html.escape
    if not isinstance(p, dict):
        return ""
    if "error" in p:
        return f'<p class="provenance">No provenance: {e(str(p["error"]))}</p>'
    out = [f'<div class="provenance"><p>{e(str(p.get("field")))} at <code>{e(str(p.get("address")))}</code> '
           f'= <code>{e(str(p.get("word")))}</code>; data flow back from the store that wrote it '
           f'(depth {int(p.get("depth") or 0)})</p><pre>']
    for s in p.get("chain") or ():
        pad = "  " * int(s.get("depth") or 0)
        via = e(s.get("via", "")) + " &lt;- " if s.get("via") else ""
        if "line" not in s:
            out.append(f"  {pad}{via}{e(str(s.get('leaf')))}\n")
            continue
        first = bool(s.get("first_differs"))
        text = (f"{pad}{via}{e(s['pc'])} {e(s['symbol'])}  {e(s['insn'])}   "
                f"{e(_values(s.get('inputs') or ()))} -&gt; {e(_values(s.get('outputs') or ()))}"
                + (f"  {e(s['leaf'])}" if s.get("leaf") else ""))
        out.append(f'<b class="first-differs">&gt;&gt;{text}   first differs from the reference</b>\n'
                   if first else f"  {text}\n")
    out.append("</pre>")
    if p.get("first_differs") is None:
        out.append("<p>The reference names no differing intermediate on this chain.</p>")
    if p.get("note"):
        out.append(f"<p>{e(str(p['note']))}</p>")
    out.append("</div>")
    return "".join(out)
