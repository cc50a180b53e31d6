"""One mismatch as HTML: the row, the bit strips, values, keys, context, plot and repro.

The only renderer of a mismatch: the static first page and every other page show this HTML
(reports.html embeds it for the page's script, which only shows and hides it).
"""
from __future__ import annotations

from html import escape

from corpus.names import printable

from . import svg
from .origins import chain_html


# DECISION: the two sides are named for what they are, the reference (our model) and the game (the
# executable under the machine); a reverse engineer reads "expected" as the game's value. In a run
# with a model in the reference's place, the model's side is named "model" (the view's "by").
REFERENCE, GAME = "reference", "game"


def e(x) -> str:
    """Text or attribute value, HTML-escaped (None is empty); a character that is not printable
    (a control character from a name in the archive) is shown as its \\x escape."""
    return escape(printable("" if x is None else str(x)), quote=True)


def strip_html(sv: dict, label: str = "", by: str = REFERENCE) -> str:
    """Two 32-cell bit strips (reference or model, game): sign / exponent / fraction, differing bits marked."""
    rows = []
    for name, bits in ((by, sv["eb"]), (GAME, sv["gb"])):
        cells = []
        for i in range(31, -1, -1):
            part = ("s" if i == 31 else ("e" if i >= 23 else "f")) if sv["float"] else "i"
            d = " d" if (sv["mask"] >> i) & 1 else ""
            cells.append(f'<span class="b {part}{d}" title="bit {i}">{(bits >> i) & 1}</span>')
        rows.append(f'<div class="srow"><span class="slbl">{e(label)} {name}</span>'
                    f'{"".join(cells)}</div>')
    head = ('<div class="shdr"><span class="slbl"></span><span class="hs">s</span>'
            '<span class="he">exponent</span><span class="hf">fraction</span></div>'
            if sv["float"] else "")
    return (f'<div class="strip">{head}{"".join(rows)}<div class="sdesc">{e(sv["desc"])}</div>'
            '</div>')


def values_html(sv: dict, by: str = REFERENCE) -> str:
    ulp = "" if sv["ulp"] is None else f'<tr><th>ulp distance</th><td colspan="3">{sv["ulp"]}</td></tr>'
    rows = "".join(f'<tr><th>{name}</th><td class="mono">{e(s["hex"])}</td>'
                   f'<td class="mono">{e(s["dec"])}</td><td class="mono">{e(s["read"])}</td></tr>'
                   for name, s in ((by, sv["e"]), (GAME, sv["g"])))
    return (f'<table class="vals"><tr><th></th><th>hex</th><th>decimal</th>'
            f'<th>{"float (display only)" if sv["float"] else "reading"}</th></tr>{rows}{ulp}</table>')


def list_html(lv: dict, by: str = REFERENCE) -> str:
    rows = "".join(f'<tr class="{"dr" if r[3] else ""}"><td>{r[0]}</td><td class="mono">{e(r[1])}'
                   f'</td><td class="mono">{e(r[2])}</td></tr>' for r in lv["rows"])
    more = f'<p class="note">{lv["more"]} more elements not shown</p>' if lv["more"] > 0 else ""
    strips = "".join(values_html(s, by) + strip_html(s, s["label"], by) for s in lv["strips"])
    return (f'<table class="vals list"><tr><th>#</th><th>{by} ({lv["ne"]})</th>'
            f'<th>{GAME} ({lv["ng"]})</th></tr>{rows}</table>{more}{strips}')


def repro_html(cmd: str, label: str = "repro") -> str:
    return (f'<div class="repro"><span class="rlbl">{e(label)}</span><code>{e(cmd)}</code>'
            f'<button type="button" class="copy" data-copy="{e(cmd)}">copy</button></div>')


def detail_html(v: dict) -> str:
    """The body of a mismatch's detail section."""
    out = []
    sh = v.get("shrunk")
    if sh:
        items = "".join(f'<tr><th>{e(k)}</th><td class="mono">{e(val)}</td>'
                        f'<td>{"" if n is None else e(n) + " item(s)"}</td></tr>'
                        for k, val, n in sh["items"])
        orig = "".join(f' {e(k)}: {n} originally.' for k, n in sh["orig"])
        tests = f' Found in {e(sh["tests"])} replays.' if sh.get("tests") is not None else ""
        head, note, label = (("Shrunk reproduction", "Smallest input that still fails.", "shrunk repro")
                             if sh.get("shrank", True) else
                             ("Replay (nothing could be dropped)", "The whole input: no smaller one still fails.",
                              "replay"))
        out.append(f'<div class="shrunk"><h4>{head}</h4><table class="kv">{items}'
                   f'</table><p class="note">{note}{orig}{tests}</p>'
                   + (repro_html(sh["repro"], label) if sh.get("repro") else "")
                   + '</div><h4>Original case</h4>')
    if v.get("provenance"):
        out.append("<h4>Provenance</h4>" + chain_html(v["provenance"]))
    kv = [("chunk", v["chunk"]), ("check", v["check"]), ("where", v.get("where")),
          ("field", v.get("field")), ("likely cause", v["cause"]), ("question", v.get("inferred")),
          ("seed", v.get("seed"))]
    by = v.get("by", REFERENCE)
    kv_html = ('<table class="kv">' + "".join(f'<tr><th>{k}</th><td>{e(x)}</td></tr>'
                                              for k, x in kv if x not in (None, "")) + '</table>')
    if "sv" in v:                                   # one u32: identity and bits side by side
        out.append(f'<div class="pair">{kv_html}<div>{values_html(v["sv"], by)}'
                   f'{strip_html(v["sv"], by=by)}</div></div>')
    elif "lv" in v:
        out.append(kv_html + list_html(v["lv"], by))
    elif "raw" in v:
        out.append(kv_html + f'<table class="vals"><tr><th>{by}</th><td class="mono">{e(v["raw"][0])}'
                   f'</td></tr><tr><th>{GAME}</th><td class="mono">{e(v["raw"][1])}</td></tr></table>')
    else:
        out.append(kv_html)
    if "dev" in v:
        out.append(f'<p class="dev">deviation d = {e(v["dev"])}, tolerance {e(v.get("tol"))}</p>')
    for k in v.get("keys", ()):
        rows = "".join(f'<tr class="{r[4]}"><td class="num">{e(r[0])}</td><td class="num">{e(r[1])}'
                       f'</td><td class="num">{e(r[2])}</td><td class="mono">{e(r[3])}</td></tr>'
                       for r in k["rows"])
        count = f' of {e(k["count"])}' if k.get("count") is not None else ""
        out.append(f'<h4>{e(k["name"])} around t={e(k["t"])} ({len(k["rows"])}{count} keys; '
                   'the segment holding t is marked)</h4><table class="grid-t keys"><tr><th>key</th>'
                   f'<th>frame</th><th>tick</th><th>value</th></tr>{rows}</table>')
    if v.get("ctx"):
        out.append('<h4>Context</h4><dl class="ctx">' + "".join(
            f'<dt>{e(k)}</dt><dd class="mono">{e(val)}</dd>' for k, val in v["ctx"]) + '</dl>')
    if v.get("series"):
        out.append('<h4>Value over time</h4>' + svg.series_plot(v["series"], v.get("time")))
    if v.get("repro"):
        out.append(repro_html(v["repro"]))
    if v.get("src"):
        out.append(f'<p class="note">record: {e(v["src"])}</p>')
    return "".join(out)


# The columns of a mismatch's row: (CSS class, heading).
ROW_COLUMNS = (("mn", "#"), ("mc", "check"), ("mch", "chunk"), ("mw", "object · track · step"),
               ("mt", "time"), ("mf", "field"), ("mv", f"{REFERENCE} → {GAME}"), ("mu", "ulp"),
               ("md", "d"), ("cause", "likely cause"))


def list_head_html(by: str = REFERENCE) -> str:
    """The column headings above the mismatch rows; by: whose answers they hold against the game's."""
    return ('<div class="mhead" aria-hidden="true">'
            + "".join(f'<span class="{c}">{e(h.replace(REFERENCE, by, 1) if c == "mv" else h)}</span>'
                      for c, h in ROW_COLUMNS) + '</div>')


def summary_line_html(v: dict) -> str:
    """The always-visible line of a mismatch (the <summary> of its <details>): time, ulp and d
    in full."""
    cells = {"mn": f'#{v["n"]}', "mc": v["check"], "mch": v["chunk"], "mw": v.get("place"),
             "mt": v.get("at"), "mf": v.get("field"),
             "mv": f'{v.get("es") or ""} → {v.get("gs") or ""}', "mu": v.get("ulp"),
             "md": v.get("dev"), "cause": v["cause"] + (" · " + v["inferred"] if v.get("inferred") else "")}
    mono = {"mv", "mu", "md"}
    return "".join(f'<span class="{c}{" mono" if c in mono else ""}">{e(cells[c])}</span>'
                   for c, _ in ROW_COLUMNS)


def mismatch_html(v: dict) -> str:
    body = detail_html(v) if v.get("full") else (
        '<p class="note">Details trimmed to keep the report small; the full record is '
        f'{e(v.get("src"))}.</p>' + (repro_html(v["repro"]) if v.get("repro") else ""))
    return (f'<details class="mm" id="m{v["n"]}"><summary>{summary_line_html(v)}</summary>'
            f'<div class="det">{body}</div></details>')
