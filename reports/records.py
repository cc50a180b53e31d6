"""The records of a run directory (interfaces.md §4), declared once as the types their reading
decodes into: the chunk record (chunks/<index:05d>.json), the mismatch record inside it, and
summary.json. The harness writes these records and imports this module; reports, a resumed run and
a merge read them back through load_chunk / load_summary, which decode and validate in one step
(msgspec, against the TypedDicts below). An error names the file, the member and the value, on one
line.

DECISION: the types are TypedDicts, so a record reads as the plain dict the harness wrote (its
members in their order; every reader indexes records as dicts). The file is decoded whole and
the result validated against its type (msgspec.convert, in C, no Python walk): a typed decode
alone leaves out every member its type does not declare (a probe run's model_not_asked, an older
summary's member since dropped), and a merge writes the records it reads, so nothing may be lost.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, TypedDict, Union

import msgspec

from corpus.names import printable
from ground.typed import Refusal, member, path_text


class ReportError(Exception):
    """A run directory that cannot be read or rendered; the message names the file and member."""


# DECISION: a number the harness writes as a float may be written as an int (0 for 0.0 is not
# rare in hand-made records, and json writes what it is given): int | float keeps each as it was
# written, so a record read and written again is the same text (a plain float would read 0 as 0.0).
Number = Union[int, float]


class Shrunk(TypedDict, total=False):
    """A mismatch cut down by harness/shrinking.py: one of steps / plan / times, and its repro."""
    steps: list
    plan: list
    times: list
    repro: str                      # the `python -m harness replay ...` command of the minimal input
    original_length: int
    tests: int


class _MismatchCheck(TypedDict):
    check: str                      # required


class Mismatch(_MismatchCheck, total=False):
    chunk: str
    object: Any                     # the object number (a hand-made record may hold anything: shown escaped)
    track: Optional[int]
    time: Optional[int]
    step: Optional[int]
    field: str
    expected: Any                   # "0x%08x" words, lists of them, or plain values
    got: Any
    ulp: Optional[int]
    deviation: Optional[Number]
    tolerance: Optional[Number]
    seed: int
    repro: str                      # the `python -m harness one ... --time T` command showing it first
    context: dict
    series: dict
    shrunk: Optional[Shrunk]        # null: shrinking it failed (the chunk record's notes say why)
    inferred: str
    provenance: Optional[dict]      # null: not traced
    answered_by: str                # "model" in a run with a model in the reference's place; absent: the reference


class _ChunkId(TypedDict):
    chunk: str                      # required: the chunk id


class ChunkRecord(_ChunkId, total=False):
    index: Optional[int]            # the selection index (the file's number; null: read from the file name)
    seconds: Number
    counters: Optional[dict]        # name -> count; a name starting "worst" or "max" is a maximum
    quirks: Optional[dict]
    counters_by_check: dict         # check -> the counters that check added
    mismatches: Optional[list[Mismatch]]   # at most harness.compare.tally.MISMATCHES_KEPT_PER_CHUNK
    dropped_mismatches: int         # mismatches counted past that cap
    worst_keyed_rotation: Optional[dict]
    rotation_deviation: list
    checks: list                    # what ran
    applicable: list                # what the chunk's content calls for
    timing: dict                    # check -> seconds
    error: Any                      # {type, message, check, where[, offset]}; any other value is its message
    repro: str                      # the `python -m harness one` command of every check on the chunk
    machine_steps: int
    cpu_seconds: Number
    machine_cpu: dict
    ledger: dict
    every_record: bool
    notes: list                     # what went wrong while shrinking (harness/shrinking.py)
    draw: dict                      # optional: what the chunk's seeded draws were
    model_seconds: Number           # a model run's (bulk --model): the model's answer and its comparison
    model_answered: dict            # a probe's run: query kind -> the queries it answered
    model_not_asked: dict           # ... and those it was not asked (docs/truth.md §5)


class FailingChunk(TypedDict, total=False):
    chunk: str
    index: int
    mismatches: int
    error: Optional[str]
    first: dict                     # the first mismatch's check, field, object, track, time, step, expected, got, ulp
    repro: Optional[str]            # the first mismatch's shrunk repro, else its repro (None: it has none)


class Summary(TypedDict, total=False):
    """summary.json, every field computed by reports.summary.summarize (whose docstring says what
    each one means). DECISION: every field is optional when read, so the summary of an older run,
    written before a field was added, still reads (reports recomputes it from the records)."""
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
    seconds: Number
    chunk_seconds: Number
    seconds_by_check: dict
    machine_steps: int
    cpu_seconds: Number
    cpu_seconds_per_chunk: Optional[Number]
    machine_cpu_seconds: dict
    chunks_per_minute: Optional[Number]
    complete: bool
    interrupted: bool
    failing_chunks: list[FailingChunk]
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


def _plain(path: Path, data: bytes):
    """The JSON value of a file's bytes, or ReportError naming the file. DECISION: a file msgspec
    cannot read (NaN or Infinity, which the standard json writes for a non-finite float) is read
    by the standard parser: one rule of what a record may hold, json's."""
    try:
        return _DECODE(data)
    except msgspec.DecodeError:
        pass
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: invalid JSON at line {e.lineno} column {e.colno} "
                          f"(offset {e.pos}): {e.msg}") from None


_DECODE = msgspec.json.Decoder().decode
# msgspec's names of JSON types, as the records' readers call them
_TYPE_NAMES = {"object": "dict", "array": "list", "null": "None", "bool": "bool", "float": "float", "int": "int",
               "str": "str"}


def _show(value) -> str:
    """A value of a record in an error message: its type and its first 40 characters."""
    return f"{type(value).__name__} {printable(repr(value)[:40])}"


def _invalid(path: Path, obj, exc: msgspec.ValidationError, what: str) -> ReportError:
    """msgspec's ValidationError, said of the record: the file, the member (as a path from the
    record: member 'index', mismatches[0].repro), the chunk where there is one, the type wanted and
    the value found."""
    r = Refusal(exc)
    keys, value = r.keys, member(obj, r.keys)
    cid = obj.get("chunk") if isinstance(obj, dict) else None
    name = f"member '{printable(keys[0])}'" if len(keys) == 1 else printable(path_text(keys)) or f"the {what}"
    of = f" of chunk {printable(cid)}" if isinstance(cid, str) and keys != ["chunk"] else ""
    if not keys and not isinstance(obj, dict):
        return ReportError(f"{path}: expected a JSON object, found {type(obj).__name__}")
    if r.missing == "chunk" and not keys and what == "chunk record":
        return ReportError(f"{path}: member 'chunk' must be the chunk id string (the {what} has none)")
    if r.missing:
        return ReportError(f"{path}: {name}{of} has no '{printable(r.missing)}'")
    if keys == ["chunk"] and what == "chunk record":
        return ReportError(f"{path}: member 'chunk' must be the chunk id string, found {_show(value)}")
    if r.wanted:
        want = " or ".join(_TYPE_NAMES.get(t, t) for t in r.wanted.split(" | "))
        return ReportError(f"{path}: {name}{of} must be {'an' if want[0] in 'aeiou' else 'a'} {want}, "
                           f"found {_show(value)}")
    return ReportError(f"{path}: {name}{of}: {printable(r.what)}")


def _typed(path: Path, obj, kind, what: str):
    """obj validated as kind (a TypedDict above); obj itself, every member kept."""
    try:
        msgspec.convert(obj, kind)
    except msgspec.ValidationError as e:
        raise _invalid(path, obj, e, what) from None
    return obj


def read_object(path: Path) -> dict:
    """A JSON object from path, or ReportError naming the file (unreadable, invalid, not an object)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror}") from None
    obj = _plain(path, data)
    if not isinstance(obj, dict):
        raise ReportError(f"{path}: expected a JSON object, found {type(obj).__name__}")
    return obj


def check_chunk(path: Path, rec: dict) -> ChunkRecord:
    """Validate a chunk record (ChunkRecord: each member's type); fill its optional members with
    their empty value, each mismatch's chunk with the record's, an index left null with the file's
    number."""
    path = Path(path)
    _typed(path, rec, ChunkRecord, "chunk record")
    for name in ("counters", "quirks"):
        if rec.get(name) is None:
            rec[name] = {}
    if rec.get("mismatches") is None:
        rec["mismatches"] = []
    err = rec.get("error")
    if err is not None and not isinstance(err, dict):
        rec["error"] = {"type": "error", "message": str(err)}
    for m in rec["mismatches"]:
        m.setdefault("chunk", rec["chunk"])
    if rec.get("index") is None:
        try:
            rec["index"] = int(path.stem)
        except ValueError:
            rec["index"] = None
    for i, m in enumerate(rec["mismatches"]):
        _check_key_words(path, rec["chunk"], i, m.get("context"))
    return rec


def load_chunk(path) -> ChunkRecord:
    """chunks/<index>.json read and validated (check_chunk)."""
    return check_chunk(Path(path), read_object(Path(path)))


def read_chunk(path) -> ChunkRecord:
    """chunks/<index>.json read and validated, as it was written (nothing filled in: a merge
    writes it again)."""
    return _typed(Path(path), read_object(Path(path)), ChunkRecord, "chunk record")


def load_summary(path) -> Summary:
    """summary.json read and validated (Summary: each member's type)."""
    return _typed(Path(path), read_object(Path(path)), Summary, "summary")


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
