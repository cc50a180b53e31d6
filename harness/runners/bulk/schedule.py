"""The order bulk checks its chunks in: the most expensive first, so that the last chunk to finish
does not set the wall time (per-chunk cost is heavy-tailed: one chunk was 19% of a 50-chunk sample).

A chunk's predicted cost is its measured time in the newest earlier run that has one (each run
writes ``timings.json``, chunk id -> seconds); without one, a proxy from the chunk's header.
DECISION: the proxy is W x the playback steps of the four speeds (checks.md §4.2), where W, the
chunk's data words, stands for its tracks and keys: parsing every chunk in the parent to count
tracks costs 16 s on the disc's 4,091 chunks, the header 0.03 s. The order changes no record.
"""
from __future__ import annotations

import json
import os
import struct

TIMINGS = "timings.json"
SPEEDS = (256, 100, 384, 700)


def header_cost(data: bytes) -> float:
    """W x sum over the four speeds of min(400, 2N*256/speed + 3), from the chunk header."""
    if len(data) < 20:
        return 0.0
    n_frames, w = struct.unpack_from("<II", data, 12)
    return float(w) * sum(min(400, (2 * n_frames * 256) // s + 3) for s in SPEEDS)


def last_timings(runs_root: str, current: str) -> dict:
    """chunk id -> seconds from the newest run directory under runs_root (not `current`) that
    has a timings file; {} when there is none or it cannot be read."""
    try:
        names = os.listdir(runs_root)
    except OSError:
        return {}
    found = []
    for name in names:
        path = os.path.join(runs_root, name, TIMINGS)
        if os.path.realpath(os.path.join(runs_root, name)) == os.path.realpath(current) or name == "latest":
            continue
        try:
            found.append((os.path.getmtime(path), path))
        except OSError:
            continue
    for _, path in sorted(found, reverse=True):
        try:
            with open(path, encoding="utf-8") as f:
                got = json.load(f)
            return {str(k): float(v) for k, v in got.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    return {}


def order(todo, chunk_bytes, timings: dict, costs=None):
    """`todo` (tuples whose [1] is the chunk id) most expensive first; ties keep run order.
    Chunks the timings know are ranked by them, in seconds; the rest by the header proxy scaled
    to seconds by the timed chunks' median ratio (or by the proxy alone when nothing is timed).
    `costs`, a dict, receives each chunk id's predicted cost (the progress line's ETA)."""
    proxy = {}
    for t in todo:
        try:
            proxy[t[1]] = header_cost(chunk_bytes(t[1]))
        except Exception:                 # a pseudo-chunk or an unreadable one: no proxy
            proxy[t[1]] = 0.0
    ratios = sorted(timings[c] / proxy[c] for c in proxy if c in timings and proxy[c] > 0)
    scale = ratios[len(ratios) // 2] if ratios else 1.0
    cost = {c: timings.get(c, proxy[c] * scale) for c in proxy}
    if costs is not None:
        costs.update(cost)
    return [t for _, t in sorted(enumerate(todo), key=lambda kt: (-cost[kt[1][1]], kt[0]))]


def write_timings(run_path: str, seconds: dict) -> None:
    """The run's measured time per chunk id, for the next run's order."""
    tmp = os.path.join(run_path, f".{TIMINGS}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(seconds, f)
        os.replace(tmp, os.path.join(run_path, TIMINGS))
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
