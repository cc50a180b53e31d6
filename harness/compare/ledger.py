"""The ledger: per kind of record, how many a chunk has and how many the checks compared.

A chunk record carries {kind: [present, compared]} for the kinds whose check ran; the summary,
the closing block and the report sum it (reports/ledger.py, the run-level half). Under a profile
that compares every record (the nightly), any kind with compared < present makes the run not
green (status "left out").

A check marks what it compared with mark(tally, kind, key, weight): the key names the record
(its index or file offset), so a record compared at several speeds or times counts once; the
weight is 1 for a record and the vertex count for morph vertices.
"""
from corpus.lights import not_evaluated
from ground.vocabulary import LEDGER_KINDS
from reference.objects import index_length

def mark(tally, kind, key, weight=1):
    """Record that `key` (one record, or one record's mmat for vertices) of `kind` was compared."""
    if kind not in LEDGER_KINDS:
        raise KeyError(f"unknown ledger kind {kind!r}; one of {', '.join(LEDGER_KINDS)}")
    tally.ledger.setdefault(kind, {})[key] = weight


def morph_vertices(anim, file):
    """Every vertex the chunk's F_Morpher records blend: per record, the vertices of every mmat of
    its morpher's base model (0 for a morpher whose base the member does not hold)."""
    if file is None:
        return 0
    models, bases = file.models, file.morphers
    n = 0
    for morpher, recs in anim.morphs.items():
        base = models.get(bases.get(morpher))
        if base is not None:
            n += len(recs) * sum(m.vertex_count for m in base.mmats)
    return n


def present(anim, member=None):
    """{kind: how many the chunk has}. member: a function giving the chunk's member file (its
    models), called only when the chunk has F_Morpher records (a cluster task carries the
    member's bytes only for a chunk that needs them)."""
    return {"object records": len(anim.tracks),
            "material records": len(anim.materials),
            "F_Morpher records": sum(len(r) for r in anim.morphs.values()),
            "F_Note records": len(anim.notes),
            "F_Obj records": len(anim.fobjs),
            "tracks": len(anim.tracks),
            "morph vertices": morph_vertices(anim, member()) if anim.morphs and member else 0,
            "direct light records": len(anim.lights),
            "index entries": index_length(getattr(anim, "anime", anim)),
            "drawn entries": index_length(getattr(anim, "anime", anim)) if anim.tracks or anim.fobjs else 0}


def of_chunk(anim, member, tally):
    """The chunk record's ledger: [present, compared] for each kind whose check ran and that the
    chunk has (a kind whose check was not selected is not in it). member: as for present()."""
    ran = set(tally.checks)
    have = present(anim, member if "morph" in ran else None)
    out = {}
    for kind, check in LEDGER_KINDS.items():
        if check in ran and have[kind]:
            out[kind] = [have[kind], sum(tally.ledger.get(kind, {}).values())]
    # the light records the game does not evaluate, by name, none compared (reports.ledger
    # NOT_EVALUATED: they never count as left out)
    for kind, n in not_evaluated(anim.anime).items():
        out[kind] = [n, 0]
    return out
