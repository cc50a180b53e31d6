"""Pair the chunk's records with the compiled table entries: by own object, then by occurrence."""
from collections import defaultdict


def entries_by_record(records, entries, kind):
    """{record.index: Entry} for records (file order) against entries whose ctrl has `kind`.

    Pass every record of the kind (not a sample): the occurrence count runs over what is passed.

    checks.md §1: key on each record's own object; two records with the same own object are told
    apart by table position. DECISION: the k-th record of object X pairs with the k-th table
    entry of object X whose ctrl has the record's kind (both are in file order).
    """
    pool = defaultdict(list)
    for e in entries:
        if e.ctrl and e.kind == kind:
            pool[e.object].append(e)
    seen = defaultdict(int)
    out = {}
    for r in records:
        obj = r.object if hasattr(r, "object") else r.material
        k = seen[obj]
        seen[obj] += 1
        if k < len(pool[obj]):
            out[r.index] = pool[obj][k]
    return out


def first_entry(entries, obj):
    for e in entries:
        if e.object == obj:
            return e
    return None

