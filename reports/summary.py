"""summary.json: the machine-readable result of a run (written by the harness, completed here).

Fields (interfaces.md §4 lists the first group; the harness writes them, reports fills any
that are missing and never overwrites one that is present):

  run_id              str    the run directory's name (UTC timestamp + short params hash)
  params              dict   params.json (seed, profile, float_model, n, jobs, image, data, chunks)
  chunks_total        int    chunks selected for the run (len(params.chunks), else chunks_done)
  chunks_done         int    chunks with a result file
  chunks_failed       int    chunks with at least one mismatch or an error
  mismatches          int    mismatches in all chunk files (records + dropped_mismatches)
  errors              int    chunks the harness could not finish (chunk "error" set)
  counters            dict   chunk counters summed (names containing "worst" or "max": maximum)
  quirks              dict   quirk coverage counts summed (how often each quirk was exercised)
  worst_keyed_rotation dict|null {d, bound, passed, chunk, track, time}: the largest keyed-rotation
                             deviation d seen (from the chunks' rotation_deviation samples and
                             from mismatch records carrying a deviation); bound is the
                             checks.md §3 bound at its passed(T) when passed is known
  seconds             float  wall time of the run (harness), else estimated from file times
  chunks_per_minute   float  chunks_done / minutes
  complete            bool   every selected chunk has a result
  bad_members         list   {member, offset, error, kind} of every archive member that could not be
                             read (corrupt, truncated, unindexed, a second member of one name) and
                             of every malformed Anime chunk (kind "anime chunk", member the chunk
                             id, offset inside the chunk); their chunks were not checked
  allow_bad_members   bool   the run was started with --allow-bad-members
  nothing_compared    list   why the run compared nothing it was asked to (0 chunks, a selected
                             check that ran on no chunk, chunks with no applicable check)
  ledger              dict   kind -> [present, compared], the chunks' ledgers summed (reports.ledger)
  left_out            list   under a profile that compares every record, each kind with
                             compared < present (the run is then not green: status "left out")
  archive_chunks      dict   {total, done, failed, mismatches} of the archive's chunks
  synthetic_chunks    dict   the same of the chunks built by code (synthetic::morph/, synthetic::edge/)
  sample_quirks       dict|null {covered, missed}: the quirk classes a sample met and missed (null:
                             the whole pool, or explicit --chunks)
  status              str    pass | mismatches | errors | left out | bad members |
                             nothing compared | incomplete | interrupted (the exit statuses in the README)

Added by reports:

  checks              dict   check -> {chunks: chunks that ran it, chunks_failed, mismatches}
  causes              dict   likely cause (reports.causes) -> mismatch count
  failing_chunks      list   ids of the failing chunks, in run order
  mismatches_dropped  int    mismatches counted by the harness beyond its per-chunk record cap
  rotation_samples    int    number of (passed, d) keyed-rotation samples recorded
  rotation_over_bound int    samples with d above the bound
  report, junit       str    file names of the rendered report and JUnit XML (relative to the run)
  reports_format      int    version of the fields reports adds (1)
"""
from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

from .causes import classify_run
from .ledger import left_out as ledger_left_out, total as ledger_total
from .load import CHECKS, Run

ROT_TOLERANCE = 1e-5      # checks.md §3
ROT_PER_KEY = 1e-7


def rot_bound(passed: int, base: float = ROT_TOLERANCE, per_key: float = ROT_PER_KEY) -> float:
    """The controller keyed-rotation bound of checks.md §3 at passed(T) keys."""
    return base + per_key * passed


def bound_params(params: dict) -> tuple[float, float]:
    b = params.get("rotation_bound") or {}
    return float(b.get("base", ROT_TOLERANCE)), float(b.get("per_key", ROT_PER_KEY))


def checks_of(chunk: dict) -> list[str]:
    """The checks that ran on a chunk: its "checks" list, else inferred from counter names
    ("<check>.<name>" / "<check>_<name>") and mismatch records."""
    # DECISION: interfaces.md §4 does not say which checks ran on a chunk; the harness records a
    # "checks" list (and "timing"); a record with neither is read from counter-name prefixes
    # and mismatches. A chunk with none of these gets no per-check testcase (JUnit uses
    # "harness" for errors).
    if isinstance(chunk.get("checks"), list):
        found = [str(c) for c in chunk["checks"]]
    elif isinstance(chunk.get("timing"), dict):
        # The harness records the seconds of each check it ran on the chunk (chunk "timing").
        # DECISION: multistep runs inside controllers (checks.md §2.3), so it ran wherever
        # controllers ran and gets its own testcase there.
        found = [str(c) for c in chunk["timing"]]
        if "controllers" in found and "multistep" not in found:
            found.append("multistep")
    else:
        found = []
        for name in chunk["counters"]:
            for sep in (".", "_", "/", ":", " "):
                head = str(name).split(sep, 1)[0]
                if head in CHECKS and head not in found:
                    found.append(head)
    for m in chunk["mismatches"]:
        if m["check"] not in found:
            found.append(m["check"])
    order = {c: i for i, c in enumerate(CHECKS)}
    return sorted(found, key=lambda c: (order.get(c, len(order)), c))


def rotation_samples(chunk: dict, base: float = ROT_TOLERANCE, per_key: float = ROT_PER_KEY):
    """(passed, d, track, time) tuples from the chunk's rotation_deviation list; without one,
    the chunk's worst controller keyed rotation, passed(T) recovered from its bound."""
    if not chunk.get("rotation_deviation"):
        w = chunk.get("worst_keyed_rotation")
        # DECISION: the harness records per chunk only the worst (d, bound) with
        # bound = base + per_key·passed (checks.md §3, controllers); inverting the bound gives
        # passed, so a run still plots one point per chunk. Playback bounds include the scale
        # and cannot be inverted; those are left out.
        if isinstance(w, dict) and w.get("check", "controllers") == "controllers" \
                and isinstance(w.get("d"), (int, float)) and isinstance(w.get("bound"), (int, float)):
            passed = round((w["bound"] - base) / per_key)
            if passed >= 0:
                yield passed, float(w["d"]), w.get("track"), w.get("time")
        return
    for s in chunk.get("rotation_deviation") or ():
        if isinstance(s, dict):
            s = [s.get("passed"), s.get("d"), s.get("track"), s.get("time")]
        if isinstance(s, (list, tuple)) and len(s) >= 2:
            try:
                passed, d = int(s[0]), float(s[1])
            except (TypeError, ValueError):
                continue
            yield passed, d, (s[2] if len(s) > 2 else None), (s[3] if len(s) > 3 else None)


def dropped(chunk: dict) -> int:
    """Mismatches the harness counted but did not record (its per-chunk cap)."""
    n = chunk.get("dropped_mismatches")
    return n if isinstance(n, int) and n > 0 else 0


def _sum_counters(dicts) -> dict:
    """Counters summed over chunks.

    DECISION: a counter named like "worst ..." or "... max ..." is a maximum, not a count."""
    total: dict = {}
    for d in dicts:
        for k, v in d.items():
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            if "worst" in k or "max" in k:
                total[k] = max(total.get(k, v), v)
            else:
                total[k] = total.get(k, 0) + v
    return total


def refused(chunk: dict) -> dict | None:
    """The bad-member entry of a chunk record whose chunk was malformed input (the harness's
    error with check "input"), else None: such a chunk is bad input, not a failed chunk."""
    err = chunk.get("error")
    if not (isinstance(err, dict) and err.get("check") == "input"):
        return None
    return {"member": chunk.get("chunk"), "offset": err.get("offset"), "kind": "anime chunk",
            "error": err.get("message")}


def _wall_seconds(run: Run) -> float | None:
    started = run.params.get("started")
    if not started or not run.chunks:
        return None
    try:
        t0 = datetime.fromisoformat(str(started).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
    if run.newest_chunk is None:
        return None
    return max(0.0, run.newest_chunk - t0)


def worst_rotation(run: Run) -> dict | None:
    base, per_key = bound_params(run.params)
    worst = None
    for ch in run.chunks:
        w = ch.get("worst_keyed_rotation")
        if isinstance(w, dict) and isinstance(w.get("d"), (int, float)) and (
                worst is None or w["d"] > worst["d"]):
            worst = dict(w, chunk=w.get("chunk") or ch["chunk"])
        for passed, d, track, time in rotation_samples(ch, base, per_key):
            if worst is None or d > worst["d"]:
                worst = {"d": d, "bound": rot_bound(passed, base, per_key), "passed": passed,
                         "chunk": ch["chunk"], "track": track, "time": time}
        for m in ch["mismatches"]:
            d = m.get("deviation")
            if isinstance(d, (int, float)) and (worst is None or d >= worst["d"]):
                passed = (m.get("context") or {}).get("passed")
                worst = {"d": float(d), "bound": m.get("tolerance"), "passed": passed,
                         "chunk": ch["chunk"], "track": m.get("track"), "time": m.get("time")}
    return worst


def compute(run: Run, causes: dict | None = None) -> dict:
    """Every summary field from the chunk files (the harness's own values take precedence
    in complete())."""
    causes = causes if causes is not None else classify_run(run.chunks)
    selected = run.params.get("chunks")
    done = len(run.chunks)
    total = len(selected) if isinstance(selected, list) else done
    failing = [ch["chunk"] for ch in run.chunks
               if ch["mismatches"] or dropped(ch) or ch.get("error") and not refused(ch)]
    per_check: dict = {}
    for ch in run.chunks:
        bad = Counter(m["check"] for m in ch["mismatches"])
        for c in checks_of(ch):
            e = per_check.setdefault(c, {"chunks": 0, "chunks_failed": 0, "mismatches": 0})
            e["chunks"] += 1
            e["chunks_failed"] += 1 if bad[c] else 0
            e["mismatches"] += bad[c]
    base, per_key = bound_params(run.params)
    samples = [s for ch in run.chunks for s in rotation_samples(ch, base, per_key)]
    complete_ = done >= total and not any("incomplete" in p for p in run.problems)
    seconds = _wall_seconds(run)
    if seconds is None:
        seconds = float(sum(ch.get("seconds") or 0 for ch in run.chunks))
    return {
        "run_id": run.params.get("run_id") or run.path.name,
        "params": run.params,
        "chunks_total": total,
        "chunks_done": done,
        "chunks_failed": len(failing),
        "mismatches": sum(len(ch["mismatches"]) + dropped(ch) for ch in run.chunks),
        "mismatches_dropped": sum(dropped(ch) for ch in run.chunks),
        "errors": sum(1 for ch in run.chunks if ch.get("error") and not refused(ch)),
        "counters": _sum_counters(ch["counters"] for ch in run.chunks),
        "quirks": _sum_counters(ch["quirks"] for ch in run.chunks),
        "worst_keyed_rotation": worst_rotation(run),
        "seconds": round(seconds, 3),
        "chunks_per_minute": round(done / (seconds / 60), 3) if seconds else None,
        "complete": complete_,
        "bad_members": list(run.params.get("bad_members") or []) + [b for b in map(refused, run.chunks) if b],
        "allow_bad_members": bool(run.params.get("allow_bad_members")),
        "nothing_compared": nothing_compared(run, total, per_check, complete_),
        **run_ledger(run),
        "checks": per_check,
        "causes": dict(Counter(causes.values())),
        "failing_chunks": failing,
        **origins(run.chunks, selected),
        "sample_quirks": run.params.get("sample_quirks"),
        "rotation_samples": len(samples),
        "rotation_over_bound": sum(1 for p, d, *_ in samples if d > rot_bound(p, base, per_key)),
        "report": "report.html",
        "junit": "junit.xml",
        "reports_format": 1,
    }


def run_ledger(run: Run) -> dict:
    """ledger and left_out from the chunk files (reports.ledger)."""
    led = ledger_total(ch.get("ledger") for ch in run.chunks)
    return {"ledger": led, "left_out": ledger_left_out(led, any(ch.get("every_record") for ch in run.chunks))}


def origins(chunks, selected=None) -> dict:
    """The archive's chunks and the chunks built by code (synthetic::..., corpus/synth/edge.py)
    counted apart: {archive_chunks, synthetic_chunks}, each {total, done, failed, mismatches};
    total counts ``selected`` (the run's selection; without it, the chunks done). A malformed
    chunk (refused) is done but not failed: it is a bad member."""
    from corpus.names import is_synthetic
    out = {"archive_chunks": Counter(total=0, done=0, failed=0, mismatches=0),
           "synthetic_chunks": Counter(total=0, done=0, failed=0, mismatches=0)}
    for ch in chunks:
        n = len(ch.get("mismatches") or ()) + dropped(ch)
        out["synthetic_chunks" if is_synthetic(ch.get("chunk")) else "archive_chunks"].update(
            done=1, failed=int(bool(n or ch.get("error") and not refused(ch))), mismatches=n)
    for cid in (selected if isinstance(selected, list) else [ch.get("chunk") for ch in chunks]):
        out["synthetic_chunks" if is_synthetic(cid) else "archive_chunks"]["total"] += 1
    return {k: {f: v[f] for f in ("total", "done", "failed", "mismatches")} for k, v in out.items()}


def nothing_compared(run: Run, total: int, per_check: dict, complete_: bool) -> list[str]:
    """Why the run compared nothing it was asked to (the harness writes the same list)."""
    why = []
    if total == 0:
        why.append("0 chunks selected (no checkable chunk in the archive)")
    elif run.chunks and not any(per_check.get(c, {}).get("chunks") for c in CHECKS):
        why.append("no check ran on any chunk")
    for c in run.params.get("checks") or ():
        c = "controllers" if c == "multistep" else c
        if complete_ and total and not per_check.get(c, {}).get("chunks"):
            why.append(f"the selected check {c} ran on no chunk")
    idle = [ch["chunk"] for ch in run.chunks if not ch.get("error")
            and not (ch["applicable"] if isinstance(ch.get("applicable"), list) else checks_of(ch))]
    if idle:
        why.append(f"{len(idle)} {'chunk' if len(idle) == 1 else 'chunks'} ran no check: " + ", ".join(idle[:5])
                   + (" ..." if len(idle) > 5 else ""))
    return why


def status(s: dict) -> str:
    """The run's verdict, as the harness decides it (harness/runners/run.py status; exit statuses in the
    README): interrupted, mismatches, errors, bad members, incomplete, nothing compared, pass."""
    if s.get("interrupted"):
        return "interrupted"
    if s.get("mismatches") or s.get("chunks_failed") and not s.get("errors"):
        return "mismatches"
    if s.get("errors"):
        return "errors"
    if s.get("left_out"):
        return "left out"
    if s.get("bad_members") and not s.get("allow_bad_members"):
        return "bad members"
    if not s.get("complete"):
        return "incomplete"
    if s.get("nothing_compared"):
        return "nothing compared"
    return "pass"


# Fields that reports owns: recomputed on every render, even when summary.json has them.
# DECISION: the harness's own fields win over reports' computation (it knows the wall time and
# what it dropped); the fields only reports writes are always recomputed.
REPORTS_FIELDS = ("checks", "causes", "failing_chunks", "rotation_samples", "rotation_over_bound",
                  "mismatches_dropped", "report", "junit", "reports_format")
# A run's completeness is recounted from its selection and records on every render: a record
# lost since the harness wrote summary.json makes the run incomplete.
RECOUNTED = ("chunks_total", "chunks_done", "complete")


def complete(run: Run, causes: dict | None = None) -> dict:
    """The harness's summary with every missing field filled in from compute(); the fields
    reports adds are always recomputed (a re-render after a resumed run updates them)."""
    computed = compute(run, causes)
    merged = dict(computed)
    for k, v in (run.summary or {}).items():
        if k not in REPORTS_FIELDS + RECOUNTED and (v is not None or k not in merged):
            merged[k] = v
    merged["status"] = status(merged)
    return merged


def write(run: Run, summary: dict, out_dir=None) -> None:
    """(Re)write summary.json atomically (in the run directory unless out_dir is given)."""
    out = Path(out_dir) if out_dir else run.path
    if out == run.path and run.summary == summary:
        return
    from . import write_atomic
    text = json.dumps(summary, indent=1, sort_keys=False) + "\n"
    write_atomic(out / "summary.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
