"""Read a run directory (interfaces.md §4) into plain records, with errors that name the file.

A run directory holds params.json, chunks/<index:05d>.json (one per finished chunk, written
atomically by the harness) and, once the run ends, summary.json and the code coverage files. Any
of them may be missing while a run is in progress or after it was killed; the loader accepts that
and says so (Run.problems) rather than failing, except for files that exist but cannot be read.
This module alone reads the run directory, once: summary, html and junit render what it loaded.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

CHECKS = ("controllers", "materials", "multistep", "playback", "notes", "morph", "fobj")


class ReportError(Exception):
    """A run directory that cannot be rendered; the message names the file and member."""


@dataclass
class Run:
    path: Path
    params: dict
    chunks: list[dict]                      # chunk records in index order
    summary: dict | None                    # summary.json as written by the harness, if any
    problems: list[str] = field(default_factory=list)   # run-level: shown at the top
    notes: list[str] = field(default_factory=list)      # rendering notes: shown with mismatches
    code_coverage: dict | None = None       # coverage_functions.json, checked (reports.code_coverage)
    has_counts: bool = False                # coverage.json exists (the run counted coverage)
    newest_chunk: float | None = None       # the newest chunk record's modification time

    @property
    def mismatches(self):
        """(chunk record, mismatch) pairs in chunk order, then record order."""
        for ch in self.chunks:
            for m in ch["mismatches"]:
                yield ch, m


def _read_json(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: invalid JSON at line {e.lineno} column {e.colno} "
                          f"(offset {e.pos}): {e.msg}") from None
    if not isinstance(obj, dict):
        raise ReportError(f"{path}: expected a JSON object, found {type(obj).__name__}")
    return obj


def _check_chunk(path: Path, rec: dict) -> dict:
    """Validate the fields reports relies on; fill optional ones with their empty value."""
    if not isinstance(rec.get("chunk"), str):
        raise ReportError(f"{path}: member 'chunk' must be the chunk id string")
    for name, kind, default in (("counters", dict, {}), ("quirks", dict, {}),
                                ("mismatches", list, [])):
        value = rec.get(name)
        if value is None:
            rec[name] = default
        elif not isinstance(value, kind):
            raise ReportError(f"{path}: member '{name}' of chunk {rec['chunk']} must be a "
                              f"{kind.__name__}, found {type(value).__name__}")
    err = rec.get("error")
    if err is not None and not isinstance(err, dict):
        rec["error"] = {"type": "error", "message": str(err)}
    for i, m in enumerate(rec["mismatches"]):
        if not isinstance(m, dict):
            raise ReportError(f"{path}: mismatches[{i}] of chunk {rec['chunk']} is not an object")
        if m.get("check") is None:
            raise ReportError(f"{path}: mismatches[{i}] of chunk {rec['chunk']} has no 'check'")
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


def selection_of(params: dict) -> dict | None:
    """{record index: chunk id} of a run's selection (a shard's slice under its selection
    indices), or None when params.json lists no chunks."""
    chunks = params.get("chunks")
    if not isinstance(chunks, list):
        return None
    sh = params.get("shard")
    indices = sh.get("indices") if isinstance(sh, dict) else None
    if not isinstance(indices, list) or len(indices) != len(chunks):
        indices = range(len(chunks))
    return dict(zip(indices, chunks))


def stray(name: str, rec: dict, selection: dict | None) -> str | None:
    """Why the record in chunks/<name> is of no selected chunk (None when it is one): its index
    must be its file's number and a selected index, and its chunk that index's chunk."""
    if selection is None:
        return None
    index = rec.get("index")
    if not name[:5].isdigit() or index != int(name[:5]):
        return f"its index {index!r} is not its file's number"
    if index not in selection:
        return f"index {index} is outside the selection of {len(selection)} chunks"
    if rec.get("chunk") != selection[index]:
        return f"it is a record of {rec.get('chunk')!r}, but index {index} selects {selection[index]!r}"
    return None


def load_run(run_dir) -> Run:
    """Read params.json, every chunks/*.json (skipping in-flight *.tmp files), summary.json and
    coverage_functions.json: the one read of the run directory a rendering makes."""
    path = Path(run_dir)
    if not path.is_dir():
        raise ReportError(f"{path}: not a run directory (expected params.json and chunks/)")
    path = path.resolve()                   # build/runs/latest is a symlink
    problems = []
    params_path = path / "params.json"
    # DECISION: a directory without params.json is not a run (the harness writes params.json
    # before any chunk): rendering it would show a green report of nothing and write files
    # into a directory that is not ours.
    if not params_path.is_file():
        raise ReportError(f"{path}: not a run directory (no params.json; a run directory holds "
                          "params.json and chunks/)")
    params = _read_json(params_path)
    chunks, mtimes = [], []
    chunk_dir = path / "chunks"
    selection = selection_of(params)
    if chunk_dir.is_dir():
        for p in sorted(chunk_dir.glob("*.json")):
            rec = _check_chunk(p, _read_json(p))
            mtimes.append(p.stat().st_mtime)
            why = stray(p.name, rec, selection)
            if why:
                problems.append(f"chunks/{p.name}: {why}; ignored")
                continue
            chunks.append(rec)
    else:
        problems.append("chunks/ is missing: no chunk finished")
    chunks.sort(key=lambda c: (c["index"] is None, c["index"] or 0, c["chunk"]))
    summary_path = path / "summary.json"
    summary = _read_json(summary_path) if summary_path.exists() else None
    if selection is not None and len(chunks) < len(selection):
        problems.append(f"{len(selection) - len(chunks)} of {len(selection)} selected chunks "
                        "have no result (run incomplete or still running)")
    from . import code_coverage
    code_path = path / code_coverage.FILE
    code = code_coverage.checked(code_path, _read_json(code_path)) if code_path.exists() else None
    return Run(path=path, params=params, chunks=chunks, summary=summary, problems=problems,
               code_coverage=code, has_counts=(path / code_coverage.COUNTS).is_file(),
               newest_chunk=max(mtimes, default=None))
