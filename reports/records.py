"""The records of a run directory (interfaces.md §4), declared once: the chunk record
(chunks/<index:05d>.json), the mismatch record inside it, and summary.json; and the validating
loader of a chunk record. The harness writes these records and imports this module; reports
reads them. An error names the file, the field and the value, on one line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, TypedDict



class ReportError(Exception):
    """A run directory that cannot be read or rendered; the message names the file and member."""


class Shrunk(TypedDict, total=False):
    """A mismatch cut down by harness/shrinking.py: one of steps / plan / times, and its repro."""
    steps: list
    plan: list
    times: list
    repro: str                      # the `python -m harness replay ...` command of the minimal input
    original_length: int
    tests: int


class Mismatch(TypedDict, total=False):
    chunk: str
    check: str                      # required
    object: Optional[int]
    track: Optional[int]
    time: Optional[int]
    step: Optional[int]
    field: str
    expected: Any                   # "0x%08x" words, lists of them, or plain values
    got: Any
    ulp: Optional[int]
    deviation: Optional[float]
    tolerance: Optional[float]
    seed: int
    repro: str                      # the `python -m harness one ... --time T` command showing it first
    context: dict
    series: dict
    shrunk: Shrunk
    inferred: str
    provenance: dict
    answered_by: str                # "model" in a run with a model in the reference's place; absent: the reference


class ChunkRecord(TypedDict, total=False):
    chunk: str                      # required: the chunk id
    index: int                      # the selection index (the file's number)
    seconds: float
    counters: dict                  # name -> count; a name starting "worst" or "max" is a maximum
    quirks: dict
    counters_by_check: dict         # check -> the counters that check added
    mismatches: list                # [Mismatch], at most harness.compare.tally.MISMATCHES_KEPT_PER_CHUNK
    dropped_mismatches: int         # mismatches counted past that cap
    worst_keyed_rotation: Optional[dict]
    rotation_deviation: list
    checks: list                    # what ran
    applicable: list                # what the chunk's content calls for
    timing: dict                    # check -> seconds
    error: Optional[dict]           # {type, message, check, where[, offset]}
    repro: str                      # the `python -m harness one` command of every check on the chunk
    machine_steps: int
    cpu_seconds: float
    machine_cpu: dict
    ledger: dict
    every_record: bool
    notes: list                     # what went wrong while shrinking (harness/shrinking.py)
    draw: dict                      # optional: what the chunk's seeded draws were
    model_seconds: float            # a model run's (bulk --model): the model's answer and its comparison


class FailingChunk(TypedDict, total=False):
    chunk: str
    index: int
    mismatches: int
    error: Optional[str]
    first: dict                     # the first mismatch's check, field, object, track, time, step, expected, got, ulp
    repro: str                      # the first mismatch's shrunk repro, else its repro


class Summary(TypedDict):
    """summary.json, every field computed by reports.summary.summarize (whose docstring says what
    each one means)."""
    run_id: str
    params: dict
    chunks_total: int
    chunks_done: int
    chunks_failed: int
    mismatches: int
    mismatches_dropped: int
    errors: int
    checks: dict
    counters: dict
    counters_by_check: dict
    quirks: dict
    worst_keyed_rotation: Optional[dict]
    seconds: float
    chunk_seconds: float
    seconds_by_check: dict
    machine_steps: int
    cpu_seconds: float
    cpu_seconds_per_chunk: Optional[float]
    machine_cpu_seconds: dict
    chunks_per_minute: Optional[float]
    complete: bool
    interrupted: bool
    failing_chunks: list            # [FailingChunk]
    bad_members: list
    allow_bad_members: bool
    chunks_nothing_compared: list
    nothing_compared: list
    ledger: dict
    left_out: list
    archive_chunks: dict
    synthetic_chunks: dict
    sample_quirks: Optional[dict]
    model: Optional[str]            # the model command in place of the built-in reference (bulk --model)
    causes: dict
    rotation_samples: int
    rotation_over_bound: int
    report: str
    junit: str
    reports_format: int
    status: str
    exit_status: int


def is_maximum(name) -> bool:
    """A counter that is a maximum, not a count.

    DECISION: a counter whose name starts with "worst" or "max", after its check's prefix when it
    has one ("controllers.worst_d"), is a maximum over the chunks; every other one is a count,
    summed."""
    return str(name).rsplit(".", 1)[-1].startswith(("worst", "max"))


# the optional members of a chunk record and the type each must have when present
_CHUNK_TYPES = (("counters", dict, {}), ("quirks", dict, {}), ("mismatches", list, []))
_OPTIONAL_TYPES = (("draw", dict),)


def read_object(path: Path) -> dict:
    """A JSON object from path, or ReportError naming the file (unreadable, invalid, not an object)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ReportError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: invalid JSON at line {e.lineno} column {e.colno} "
                          f"(offset {e.pos}): {e.msg}") from None
    if not isinstance(obj, dict):
        raise ReportError(f"{path}: expected a JSON object, found {type(obj).__name__}")
    return obj


def check_chunk(path: Path, rec: dict) -> ChunkRecord:
    """Validate a chunk record; fill its optional members with their empty value."""
    path = Path(path)
    if not isinstance(rec.get("chunk"), str):
        raise ReportError(f"{path}: member 'chunk' must be the chunk id string")
    for name, kind, default in _CHUNK_TYPES:
        value = rec.get(name)
        if value is None:
            rec[name] = default
        elif not isinstance(value, kind):
            raise ReportError(f"{path}: member '{name}' of chunk {rec['chunk']} must be a "
                              f"{kind.__name__}, found {type(value).__name__}")
    for name, kind in _OPTIONAL_TYPES:
        value = rec.get(name)
        if name in rec and not isinstance(value, kind):
            raise ReportError(f"{path}: member '{name}' of chunk {rec['chunk']} must be a "
                              f"{kind.__name__}, found {type(value).__name__} {str(value)[:40]!r}")
    err = rec.get("error")
    if err is not None and not isinstance(err, dict):
        rec["error"] = {"type": "error", "message": str(err)}
    for i, m in enumerate(rec["mismatches"]):
        if not isinstance(m, dict):
            raise ReportError(f"{path}: mismatches[{i}] of chunk {rec['chunk']} is not an object")
        if m.get("check") is None:
            raise ReportError(f"{path}: mismatches[{i}] of chunk {rec['chunk']} has no 'check'")
        if m.get("repro") is not None and not isinstance(m["repro"], str):
            raise ReportError(f"{path}: mismatches[{i}].repro of chunk {rec['chunk']} must be a str, "
                              f"found {type(m['repro']).__name__} {str(m['repro'])[:40]}")
        m.setdefault("chunk", rec["chunk"])
    if rec.get("index") is None:
        try:
            rec["index"] = int(path.stem)
        except ValueError:
            rec["index"] = None
    elif not isinstance(rec["index"], int) or isinstance(rec["index"], bool):
        raise ReportError(f"{path}: member 'index' of chunk {rec['chunk']} must be an integer, "
                          f"found {type(rec['index']).__name__} {rec['index']!r}")
    for i, m in enumerate(rec["mismatches"]):
        _check_key_words(path, rec["chunk"], i, m.get("context"))
    return rec


def load_chunk(path) -> ChunkRecord:
    """chunks/<index>.json read and validated (check_chunk)."""
    return check_chunk(Path(path), read_object(Path(path)))


def _check_key_words(path: Path, chunk: str, i: int, ctx) -> None:
    """The key tables of a mismatch's context (reports.describe.keys_view) hold u32 words: a word
    written "0x..." that is not one is an error naming the file, the field and the value."""
    from .bits import is_hex_pattern, parse_u32
    if not isinstance(ctx, dict):
        return
    for name, val in ctx.items():
        keys = val.get("keys") if isinstance(val, dict) else None
        for j, k in enumerate(keys if isinstance(keys, list) else ()):
            words = k.get("value") if isinstance(k, dict) else None
            for w in words if isinstance(words, list) else [words]:
                if is_hex_pattern(w) and parse_u32(w) is None:
                    raise ReportError(f"{path}: mismatches[{i}].context.{name}.keys[{j}].value of chunk "
                                      f"{chunk}: {w!r} is not a u32 word (0x and at most 8 hex digits)")
