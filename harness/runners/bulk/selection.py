"""Which chunks a run checks: the bulk pool (quick test of formats.md §4.1) and seeded samples."""
import random

from harness import checks

# Sub-record header byte patterns of the kinds the checks compare (u32 LE: kind, 0xCCCC).
# DECISION: checks.md §9 samples chunks containing `02 01 CC CC` (object records). eediff widens the
# pool to every chunk with any checked record (object, material, F_Morpher, F_Note, F_Obj), so that
# note-, morph- and F_Obj-only chunks are covered by `make bulk` too. N >= pool size means the whole
# pool in archive order; a smaller N is a seeded sample (seed, "bulk-sample"), kept in archive order.
QUICK_TESTS = {
    "object": b"\x02\x01\xCC\xCC",
    "material": b"\x02\x02\xCC\xCC",
    "morph": b"\x01\x19\xCC\xCC",
    "note": b"\x08\x01\xCC\xCC",
    "fobj": b"\x01\x01\xCC\xCC",
}


def kinds_for(names):
    """The record kinds the checks `names` (names or aliases) need, for a `--check` run's pool
    (None: every kind)."""
    if not names:
        return None
    return sorted({k for n in names for k in checks.resolve(n).kinds})


def has_record(data, kind):
    """formats.md §4.1 quick test, aligned to words after the 20-byte header."""
    pat = QUICK_TESTS[kind]
    i = data.find(pat, 20)
    while i != -1:
        if (i - 20) % 4 == 0:
            return True
        i = data.find(pat, i + 1)
    return False


def checkable(data):
    return any(has_record(data, k) for k in QUICK_TESTS)


_KINDS = {}


def kinds_by_chunk(corpus):
    """{chunk id: the record kinds its data contain} for the whole corpus, computed once per corpus."""
    key = id(corpus)
    if key not in _KINDS:
        _KINDS[key] = (corpus, {cid: frozenset(k for k in QUICK_TESTS if has_record(corpus.chunk(cid).data, k))
                                for cid in corpus.chunk_ids()})
    return _KINDS[key][1]


def pool(corpus, kinds=None):
    """Chunk ids (archive order) whose data pass the quick test for any of `kinds`."""
    kinds = set(kinds or QUICK_TESTS)
    return [cid for cid, ks in kinds_by_chunk(corpus).items() if ks & kinds]


def sample(ids, n, seed):
    if n <= 0 or n >= len(ids):
        return list(ids)
    picked = set(random.Random(f"{seed}:bulk-sample").sample(range(len(ids)), n))
    return [cid for i, cid in enumerate(ids) if i in picked]


def quirk_sample(corpus, ids, n, seed):
    """(the chunks, the quirk classes they cover, the classes the pool holds that they miss).

    DECISION: a sample smaller than the pool first meets every quirk class the pool holds
    (corpus/chunk_quirks.py), the rarest class first: by the first chunk of today's draw (`sample`,
    in draw order) that holds it, else by the pool's chunk holding it that meets the most classes
    not yet met (ties drawn from (seed, "quirk-sample")), while fewer than n chunks are chosen. The
    rest is today's draw in its order, so the sample differs from it only by the chunks the classes
    needed. A class the n chunks cannot all meet is listed as missed. The whole pool (n <= 0 or
    n >= its size) is returned as it is, with no classes worked out."""
    if n <= 0 or n >= len(ids):
        return list(ids), None, None
    from corpus.chunk_quirks import CLASSES, quirks_by_chunk
    table = quirks_by_chunk(corpus)
    held = {cid: table.get(cid, frozenset()) for cid in ids}
    holders = {c: [cid for cid in ids if c in held[cid]] for c in CLASSES}
    present = [c for c in CLASSES if holders[c]]
    draw = [ids[i] for i in random.Random(f"{seed}:bulk-sample").sample(range(len(ids)), n)]
    rng = random.Random(f"{seed}:quirk-sample")
    chosen, met = [], set()
    for c in sorted(present, key=lambda c: (len(holders[c]), CLASSES.index(c))):
        if c in met:
            continue
        if len(chosen) >= n:
            break
        pick = next((cid for cid in draw if c in held[cid]), None)
        if pick is None:
            best = max(len(held[cid] - met) for cid in holders[c])
            pick = rng.choice([cid for cid in holders[c] if len(held[cid] - met) == best])
        chosen.append(pick)
        met |= held[pick]
    picked = set(chosen)
    picked |= set([cid for cid in draw if cid not in picked][:n - len(picked)])
    out = [cid for cid in ids if cid in picked]
    covered = set().union(*(held[cid] for cid in out))
    return out, [c for c in present if c in covered], [c for c in present if c not in covered]
