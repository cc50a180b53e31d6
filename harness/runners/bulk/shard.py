"""Shards: the K-th of M deterministic, balanced slices of one bulk selection (`--shard K/M`).

A shard run's params.json lists only its own chunks ("chunks") and keeps where they sit in the
whole selection ("shard": k, m, their indices, and the size and SHA-256 of the whole list), so
each chunk record carries the index it has in an unsplit run and `merge` can put the slices back.
"""
from __future__ import annotations

import hashlib
import heapq
import json

from harness import HarnessError

# DECISION: a chunk's predicted cost is its size in bytes (the Anime chunk's length): keyframes,
# tracks, notes and morph targets all grow it, and it is known from the archive's index without
# parsing. A synthetic morph pseudo-chunk (no archive bytes) counts PSEUDO_COST bytes.
PSEUDO_COST = 4096


def parse(text):
    """'2/8' -> (2, 8); a clear error for anything else."""
    try:
        k, m = (int(x) for x in str(text).split("/"))
    except ValueError:
        raise HarnessError(f"SHARD={text}: expected K/M, e.g. 2/8 (the second of eight shards)") from None
    if m < 1 or not 1 <= k <= m:
        raise HarnessError(f"SHARD={text}: K must be between 1 and M (M >= 1)")
    return k, m


def selection_digest(ids):
    return hashlib.sha256(json.dumps(list(ids)).encode()).hexdigest()


def predicted_cost(corpus, cid):
    from corpus.synth.edge import is_synthetic
    if is_synthetic(cid):             # the Modify blends and the edge chunks, built by code
        return PSEUDO_COST
    ch = corpus.chunk(cid)
    n = getattr(ch, "length", None)
    return int(n) if n is not None else len(ch.data)


def assign(costs, m):
    """Shard number (0-based) of each index: the longest predicted chunk first, each to the least
    loaded shard so far (ties: the lower shard), so the slices' predicted costs stay close."""
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    heap = [(0, s) for s in range(min(m, len(costs)))]     # shards beyond the chunks get none
    out = [0] * len(costs)
    for i in order:
        load, s = heapq.heappop(heap)
        out[i] = s
        heapq.heappush(heap, (load + costs[i], s))
    return out


def select(ids, costs, k, m):
    """(the shard's ids, its params["shard"] entry) for shard k of m of the selection `ids`."""
    # DECISION: more shards than chunks would leave shards that compare nothing: refused, naming
    # both numbers, before anything is built per shard.
    if ids and m > len(ids):
        raise HarnessError(f"SHARD={k}/{m}: {m} shards of a selection of {len(ids)} chunks; at most "
                           f"{len(ids)} shards (one chunk each)")
    owner = assign(costs, m)
    indices = [i for i in range(len(ids)) if owner[i] == k - 1]
    info = {"k": k, "m": m, "indices": indices, "selection_size": len(ids),
            "selection_sha256": selection_digest(ids),
            "predicted_cost": sum(costs[i] for i in indices)}
    return [ids[i] for i in indices], info


def indices_of(params):
    """The selection index of each chunk of a run's params (0..n-1 for an unsplit run)."""
    sh = params.get("shard")
    return list(sh["indices"]) if sh else list(range(len(params.get("chunks") or ())))


def label(params):
    sh = params.get("shard")
    return f"{sh['k']}/{sh['m']}" if sh else None
