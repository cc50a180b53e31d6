"""Read a run directory (interfaces.md §4) into plain records, with errors that name the file.

A run directory holds params.json, chunks/<index:05d>.json (one per finished chunk, written
atomically by the harness) and, once the run ends, summary.json and the code coverage files. Any
of them may be missing while a run is in progress or after it was killed; the loader accepts that
and says so (Run.problems) rather than failing, except for files that exist but cannot be read.
This module alone reads the run directory, once: summary, html and junit render what it loaded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .records import ReportError, load_chunk, load_summary, read_object  # noqa: F401  (the record schema: reports.records)


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
    params = read_object(params_path)
    chunks, mtimes = [], []
    chunk_dir = path / "chunks"
    selection = selection_of(params)
    if chunk_dir.is_dir():
        for p in sorted(chunk_dir.glob("*.json")):
            rec = load_chunk(p)
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
    summary = load_summary(summary_path) if summary_path.exists() else None
    if selection is not None and len(chunks) < len(selection):
        problems.append(f"{len(selection) - len(chunks)} of {len(selection)} selected chunks "
                        "have no result (run incomplete or still running)")
    from . import code_coverage
    code_path = path / code_coverage.FILE
    code = code_coverage.checked(code_path, read_object(code_path)) if code_path.exists() else None
    return Run(path=path, params=params, chunks=chunks, summary=summary, problems=problems,
               code_coverage=code, has_counts=(path / code_coverage.COUNTS).is_file(),
               newest_chunk=max(mtimes, default=None))
