"""The ledger of a run: per kind of record, how many the chunks have and how many were compared.

Each chunk record carries "ledger" {kind: [present, compared]} and "every_record" (whether its
profile compares every record, as the nightly does); the harness writes them
(harness/compare/ledger.py). Here they are summed, and a run whose profile compares every record
is not green when any kind has compared < present.

The kinds come in ground/vocabulary.py's LEDGER_KINDS order; NOT_EVALUATED, the light records the
game does not evaluate, are listed by name with nothing compared, never left out.
"""
from ground.vocabulary import LEDGER_KINDS, NOT_EVALUATED


def total(ledgers):
    """The sum of chunk ledgers: {kind: [present, compared]}, kinds in LEDGER_KINDS."""
    acc = {}
    for led in ledgers:
        for kind, pc in (led or {}).items():
            a = acc.setdefault(kind, [0, 0])
            a[0] += int(pc[0])
            a[1] += int(pc[1])
    order = ([k for k in LEDGER_KINDS if k in acc] + sorted(set(acc) - set(LEDGER_KINDS) - set(NOT_EVALUATED))
             + [k for k in NOT_EVALUATED if k in acc])
    return {k: acc[k] for k in order}


def left_out(ledger, every_record, profile="nightly"):
    """Why the run is not green for its ledger: one line per kind with compared < present when
    the profile compares every record ([] for a sampling profile)."""
    if not every_record:
        return []
    return [f"{kind}: compared {c:,} of {p:,} ({p - c:,} left out; the {profile} profile compares "
            f"every one)" for kind, (p, c) in (ledger or {}).items() if c < p and kind not in NOT_EVALUATED]


def lines(ledger):
    """The ledger as text: "compared 229,107 of 229,107 object records", one line per kind."""
    return [f"{p:,} {kind} not evaluated by the game, none compared" if kind in NOT_EVALUATED
            else f"compared {c:,} of {p:,} {kind}" + (f" ({p - c:,} left out)" if c < p else "")
            for kind, (p, c) in (ledger or {}).items()]


def html(summary):
    """The report's ledger table: kind, present, compared, left out."""
    from html import escape
    led = summary.get("ledger") or {}
    if not led:
        return ""
    rows = "".join(f'<tr><td>{escape(str(kind))}</td><td class="num">{p:,}</td><td class="num">{c:,}</td>'
                   f'<td class="num{" fail" if c < p and kind not in NOT_EVALUATED else ""}">'
                   f'{"not evaluated by the game" if kind in NOT_EVALUATED else f"{p - c:,}"}</td></tr>'
                   for kind, (p, c) in led.items())
    return ('<h3>Ledger</h3><p>What the run compared of each kind of record ('
            + escape("; ".join(lines(led))) + ').</p><table class="grid-t"><tr><th>kind</th><th>present</th>'
            f'<th>compared</th><th>left out</th></tr>{rows}</table>')
