"""The users' probes as models (docs/spec/fixtures.md §2-§3): a `--model` with a protocol prefix,
`morph-probe:CMD`, runs CMD and speaks its own line protocol instead of docs/truth.md's JSON lines.

    morph-probe:CMD   morph_probe (§3): one line per modify query,
                      `BASE_SCALE N K x y z ... {SCALE WEIGHT x y z ...}` (words as 8 hex digits,
                      positions decimal) -> one line of 3N decimal s16

Such a model answers some query kinds only (`kinds_of`): the others are not sent to it, and the
run says what was not asked (the chunk record's `model_not_asked`). A probe that exits, panics
(its stderr's end is shown), prints a short or malformed line or does not answer in time is the
chunk's ModelError, naming the query.

DECISION: foe_probe (`foe-probe:`) is refused as a prefix. Its `index STEM` answer is a part of what
eediff's `objects` query asks (the Obj and ExtObj objects of each Anime chunk's index list, fixtures.md
§2), so it cannot answer an `objects` query, and a run of it could never be complete: it waits for a
query kind and check of its own for that part (the index list alone). Its `pose` answers a
per-enemy-row clump, which no eediff query asks.
"""
from __future__ import annotations

from corpus.names import printable

from harness import HarnessError

MORPH_PROBE = "morph-probe"
PREFIXES = {MORPH_PROBE: ("modify",)}     # prefix -> the query kinds its program answers
NOT_YET = {"foe-probe": "foe_probe answers the Obj/ExtObj part of an index list and per-row poses, and "
                        "eediff has no query kind for either alone yet (docs/spec/fixtures.md §2)"}


def split(command):
    """(prefix or None, the program's command) of a --model; a HarnessError for a known probe
    prefix that eediff cannot speak."""
    head, colon, rest = command.partition(":")
    if colon and head in PREFIXES:
        return head, rest
    if colon and head in NOT_YET:
        raise HarnessError(f"--model {printable(command)}: {NOT_YET[head]}")
    return None, command


def kinds_of(command):
    """The query kinds the model of this --model answers; None: every kind (docs/truth.md §2)."""
    if not command:
        return None
    prefix, _ = split(command)
    return PREFIXES.get(prefix)


def morph_request(q):
    """§3: the probe's request line of one modify query."""
    words = [f"{int(q['base_scale']) & 0xFFFFFFFF:08x}", str(len(q["base"])), str(len(q["targets"]))]
    words += [str(int(x)) for v in q["base"] for x in v]
    for t in q["targets"]:
        words += [f"{int(t['scale']) & 0xFFFFFFFF:08x}", f"{int(t['weight']) & 0xFFFFFFFF:08x}"]
        words += [str(int(x)) for v in t["positions"] for x in v]
    return " ".join(words) + "\n"


def morph_answer(q, line):
    """§3: the probe's answer line to modify query q, as the protocol's answer; a ValueError
    saying what is wrong when it is not 3N decimal s16."""
    text = line.decode("ascii", "replace").rstrip("\r\n")
    words = text.split()
    n = len(q["base"])
    shown = printable(text[:120]) + ("..." if len(text) > 120 else "")
    if len(words) != 3 * n:
        raise ValueError(f"morph_probe answered {len(words)} numbers, not the {3 * n} of {n} vertices: {shown!s}")
    try:
        xs = [int(w, 10) for w in words]
    except ValueError:
        raise ValueError(f"morph_probe's answer is not decimal integers: {shown!s}") from None
    if any(not -32768 <= x <= 32767 for x in xs):
        raise ValueError(f"morph_probe's answer holds a number outside -32768..32767: {shown!s}")
    return {"i": q["i"], "kind": "modify", "vertices": [xs[k:k + 3] for k in range(0, len(xs), 3)]}


# prefix -> (its request line of a query, its answer of a query and a line)
CODECS = {MORPH_PROBE: (morph_request, morph_answer)}
