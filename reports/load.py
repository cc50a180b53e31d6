"""Read a run directory (interfaces.md §4) into plain records, with errors that name the file.

A run directory holds params.json, chunks/<index:05d>.json (one per finished chunk, written
atomically by the harness) and, once the run ends, summary.json. Any of them may be missing
while a run is in progress or after it was killed; the loader accepts that and says so
(Run.problems) rather than failing, except for files that exist but cannot be read.
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
    if "index" not in rec:
        try:
            rec["index"] = int(path.stem)
        except ValueError:
            rec["index"] = None
    return rec


def load_run(run_dir) -> Run:
    """Read params.json, every chunks/*.json (skipping in-flight *.tmp files) and summary.json."""
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
    chunks = []
    chunk_dir = path / "chunks"
    if chunk_dir.is_dir():
        for p in sorted(chunk_dir.glob("*.json")):
            chunks.append(_check_chunk(p, _read_json(p)))
    else:
        problems.append("chunks/ is missing: no chunk finished")
    chunks.sort(key=lambda c: (c["index"] is None, c["index"] or 0, c["chunk"]))
    summary_path = path / "summary.json"
    summary = _read_json(summary_path) if summary_path.exists() else None
    selected = params.get("chunks")
    if isinstance(selected, list) and len(chunks) < len(selected):
        problems.append(f"{len(selected) - len(chunks)} of {len(selected)} selected chunks "
                        "have no result (run incomplete or still running)")
    return Run(path=path, params=params, chunks=chunks, summary=summary, problems=problems)
