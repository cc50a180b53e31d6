"""summary.json: the machine-readable result of a run, computed by one function, summarize(),
from the run's parameters and its chunk records (reports.records). The harness calls it when a
bulk or a merge ends (harness/runners/bulk/run.py RunDir.summarize), the report when it renders; all
three write the same file. Two facts are not in the records and are passed in: the run's wall
time (`seconds`) and whether it was interrupted; the report takes both from the summary.json it
finds. Every number is stored once.

  run_id              str    the run directory's name (UTC timestamp + short params hash)
  params              dict   params.json (seed, profile, float_model, n, jobs, image, data, chunks,
                             argv, rerun: the command that re-runs the run, built by the harness)
  chunks_total        int    chunks selected for the run (len(params.chunks), else chunks_done)
  chunks_done         int    chunks with a result file
  chunks_failed       int    chunks with at least one mismatch or an error
  mismatches          int    mismatches in all chunk files (records + dropped_mismatches)
  mismatches_dropped  int    of those, the ones counted past the harness's per-chunk record cap
  errors              int    chunks the harness could not finish (chunk "error" set)
  checks              dict   check -> {chunks: chunks that ran it, chunks_failed, mismatches (recorded)}
  counters            dict   chunk counters summed; a counter whose name starts with "worst" or
                             "max" (after a "<check>." prefix) is a maximum over the chunks, not a sum
  counters_by_check   dict   check -> its counters, over the chunks by the same rule
  quirks              dict   quirk coverage counts summed (how often each quirk was exercised)
  worst_keyed_rotation dict|null {d, bound, passed, chunk, track, time[, check]}: the largest
                             keyed-rotation deviation d seen (from the chunks' worst, their
                             rotation_deviation samples and mismatch records carrying a deviation)
  seconds             float  wall time of the run (harness), else estimated from file times
  chunk_seconds       float  the chunks' own seconds summed (the workers' time)
  seconds_by_check    dict   check -> seconds, summed over the chunks
  machine_steps       int    instructions the machine executed
  cpu_seconds         float  the workers' process time; cpu_seconds_per_chunk the mean
  machine_cpu_seconds dict   game function -> seconds in the machine
  chunks_per_minute   float  chunks_done / minutes of `seconds`
  complete            bool   every selected chunk has a result
  interrupted         bool   the run was stopped (Ctrl-C, SIGTERM) before it ended
  failing_chunks      list   the first 10 failing chunks in run order, each {chunk, index,
                             mismatches, error, first (its first mismatch), repro (that
                             mismatch's shrunk repro, else its repro)}
  bad_members         list   {member, offset, error, kind} of every archive member that could not be
                             read (corrupt, truncated, unindexed, a second member of one name) and
                             of every malformed Anime chunk (kind "anime chunk", member the chunk
                             id, offset inside the chunk); their chunks were not checked
  allow_bad_members   bool   the run was started with --allow-bad-members
  chunks_nothing_compared list the chunks to which no check applies
  nothing_compared    list   why the run compared nothing it was asked to (0 chunks, a selected
                             check that ran on no chunk, chunks with no applicable check)
  ledger              dict   kind -> [present, compared], the chunks' ledgers summed (reports.ledger)
  left_out            list   under a profile that compares every record, each kind with
                             compared < present (the run is then not green: status "left out")
  archive_chunks      dict   {total, done, failed, mismatches} of the archive's chunks
  synthetic_chunks    dict   the same of the chunks built by code (synthetic::morph/, synthetic::edge/)
  sample_quirks       dict|null {covered, missed}: the quirk classes a sample met and missed (null:
                             the whole pool, or explicit --chunks)
  model               str|null the program in place of the built-in reference (bulk --model), or null
  causes              dict   likely cause (reports.causes) -> mismatch count
  rotation_samples    int    number of (passed, d) keyed-rotation samples recorded
  rotation_over_bound int    samples with d above the bound
  report, junit       str    file names of the rendered report and JUnit XML (relative to the run)
  reports_format      int    version of these fields (2: one summariser; failing_chunks as above,
                             mismatches_dropped once, no mismatches_by_check nor chunks)
  status              str    pass | mismatches | errors | left out | bad members |
                             nothing compared | incomplete | interrupted (the exit statuses in the README)
  exit_status         int    the status the harness exits with (EXIT)
"""
from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

from ground.exits import EXIT
from ground.files import write_atomic
from ground.bounds import ROT_PER_KEY, ROT_TOLERANCE, keyed_bound
from ground.vocabulary import CHECK_NAMES as CHECKS

from .causes import classify_run
from .ledger import left_out as ledger_left_out, total as ledger_total
from .load import Run
from .records import ChunkRecord, ReportError, Summary, is_maximum

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


def sum_counters(dicts) -> dict:
    """Counters over chunks: counts summed, maxima (is_maximum) the largest."""
    total: dict = {}
    for d in dicts:
        for k, v in (d or {}).items():
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            if is_maximum(k):
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


def worst_rotation(params: dict, chunks: list) -> dict | None:
    base, per_key = bound_params(params)
    worst = None
    for ch in chunks:
        w = ch.get("worst_keyed_rotation")
        if isinstance(w, dict) and isinstance(w.get("d"), (int, float)) and (
                worst is None or w["d"] > worst["d"]):
            worst = dict(w, chunk=w.get("chunk") or ch["chunk"])
        for passed, d, track, time in rotation_samples(ch, base, per_key):
            if worst is None or d > worst["d"]:
                worst = {"d": d, "bound": keyed_bound(passed, base, per_key), "passed": passed,
                         "chunk": ch["chunk"], "track": track, "time": time}
        for m in ch["mismatches"]:
            d = m.get("deviation")
            if isinstance(d, (int, float)) and (worst is None or d >= worst["d"]):
                passed = (m.get("context") or {}).get("passed")
                worst = {"d": float(d), "bound": m.get("tolerance"), "passed": passed,
                         "chunk": ch["chunk"], "track": m.get("track"), "time": m.get("time")}
    return worst


# DECISION: exit statuses follow pytest where they can: 0 pass, 1 mismatches (or a chunk the
# harness could not finish), 2 usage or input error (bad members among them), 5 nothing
# compared, 130 interrupted. When several hold, the first of 130, 1, 2, 5 is the status.
FAILING_CHUNKS_LISTED = 10


def failed(ch: dict) -> bool:
    """A chunk with a mismatch (recorded or dropped) or an error; a refused (malformed) chunk is
    a bad member, not a failed chunk."""
    return bool(ch["mismatches"] or dropped(ch) or ch.get("error") and not refused(ch))


def summarize(params: dict, chunks: list[ChunkRecord], *, seconds: float | None = None,
              interrupted: bool = False, causes: dict | None = None, run_id: str | None = None) -> Summary:
    """summary.json of a run: its params.json and its chunk records (reports.records.check_chunk,
    the selected ones in index order). seconds: the run's wall time (None: the chunks' own
    seconds summed); causes: reports.causes.classify_run(chunks) when already computed."""
    causes = causes if causes is not None else classify_run(chunks)
    selected = params.get("chunks")
    done = len(chunks)
    total = len(selected) if isinstance(selected, list) else done
    per_check: dict = {}
    for ch in chunks:
        bad = Counter(m["check"] for m in ch["mismatches"])
        for c in checks_of(ch):
            e = per_check.setdefault(c, {"chunks": 0, "chunks_failed": 0, "mismatches": 0})
            e["chunks"] += 1
            e["chunks_failed"] += 1 if bad[c] else 0
            e["mismatches"] += bad[c]
    base, per_key = bound_params(params)
    samples = [s for ch in chunks for s in rotation_samples(ch, base, per_key)]
    complete_ = done >= total
    chunk_seconds = round(sum(float(ch.get("seconds") or 0.0) for ch in chunks), 2)
    seconds = round(float(seconds if seconds is not None else chunk_seconds), 2)
    cpu = sum(float(ch.get("cpu_seconds") or 0.0) for ch in chunks)
    idle = [ch["chunk"] for ch in chunks if not ch.get("error")
            and not (ch["applicable"] if isinstance(ch.get("applicable"), list) else checks_of(ch))]
    by_check: dict = {}
    for ch in chunks:
        for c, cs in (ch.get("counters_by_check") or {}).items():
            by_check.setdefault(c, []).append(cs)
    summary = {
        "run_id": params.get("run_id") or run_id,
        "params": params,
        "chunks_total": total,
        "chunks_done": done,
        "chunks_failed": sum(1 for ch in chunks if failed(ch)),
        "mismatches": sum(len(ch["mismatches"]) + dropped(ch) for ch in chunks),
        "mismatches_dropped": sum(dropped(ch) for ch in chunks),
        "errors": sum(1 for ch in chunks if ch.get("error") and not refused(ch)),
        "checks": per_check,
        "counters": dict(sorted(sum_counters(ch["counters"] for ch in chunks).items())),
        "counters_by_check": {c: sum_counters(v) for c, v in by_check.items()},
        "quirks": dict(sorted(sum_counters(ch["quirks"] for ch in chunks).items())),
        "worst_keyed_rotation": worst_rotation(params, chunks),
        "seconds": seconds,
        "chunk_seconds": chunk_seconds,
        "seconds_by_check": {k: round(v, 2) for k, v in
                             sum_counters(ch.get("timing") for ch in chunks).items()},
        "machine_steps": sum(int(ch.get("machine_steps") or 0) for ch in chunks),
        "cpu_seconds": round(cpu, 2),
        "cpu_seconds_per_chunk": round(cpu / done, 3) if done else None,
        "machine_cpu_seconds": {k: round(v, 2) for k, v in sorted(
            sum_counters(ch.get("machine_cpu") for ch in chunks).items(), key=lambda kv: -kv[1])},
        "chunks_per_minute": round(60.0 * done / seconds, 2) if seconds else None,
        "complete": complete_,
        "interrupted": bool(interrupted),
        "failing_chunks": [failing_chunk(ch) for ch in chunks if failed(ch)][:FAILING_CHUNKS_LISTED],
        "bad_members": list(params.get("bad_members") or []) + [b for b in map(refused, chunks) if b],
        "allow_bad_members": bool(params.get("allow_bad_members")),
        "chunks_nothing_compared": idle,
        "nothing_compared": nothing_compared(params, chunks, total, per_check, complete_, idle),
        **run_ledger(chunks),
        **origins(chunks, selected),
        "sample_quirks": params.get("sample_quirks"),
        "model": params.get("model"),
        "causes": dict(Counter(causes[id(m)] for ch in chunks for m in ch["mismatches"])),
        "rotation_samples": len(samples),
        "rotation_over_bound": sum(1 for p, d, *_ in samples if d > keyed_bound(p, base, per_key)),
        "report": "report.html",
        "junit": "junit.xml",
        "reports_format": 2,
    }
    summary["status"] = status(summary)
    summary["exit_status"] = EXIT.get(summary["status"], 1)
    return summary


def failing_chunk(ch: dict) -> dict:
    """A failing chunk for the closing summary: its first mismatch and that mismatch's repro
    (the shrunk one when shrinking succeeded), or its error."""
    err = ch.get("error")
    out = {"chunk": ch.get("chunk"), "index": ch.get("index"), "mismatches": len(ch["mismatches"]) + dropped(ch),
           "error": f"{err.get('type')}: {err.get('message')}" if err else None}
    if ch["mismatches"]:
        m = ch["mismatches"][0]
        out["first"] = {k: m.get(k) for k in ("check", "field", "object", "track", "time", "step", "answered_by",
                                              "expected", "got", "ulp")}
        out["repro"] = (m.get("shrunk") or {}).get("repro") or m.get("repro")
    return out


def run_ledger(chunks: list) -> dict:
    """ledger and left_out from the chunk records (reports.ledger), and the query kinds a model
    that answers some kinds only (a probe, docs/truth.md §5) answered and was not asked: what it
    was not asked is left out."""
    led = ledger_total(ch.get("ledger") for ch in chunks)
    out = {"ledger": led, "left_out": ledger_left_out(led, any(ch.get("every_record") for ch in chunks))}
    answered = sum_counters(ch.get("model_answered") for ch in chunks)
    not_asked = sum_counters(ch.get("model_not_asked") for ch in chunks)
    if answered or not_asked:
        out["model_kinds"] = {"answered": dict(sorted(answered.items())), "not_asked": dict(sorted(not_asked.items()))}
    if not_asked:
        out["left_out"] = out["left_out"] + [
            f"the model was not asked {', '.join(f'{n:,} {k}' for k, n in sorted(not_asked.items()))} queries "
            f"(it answers {', '.join(sorted(answered)) or 'none of them'}): CHECK= the checks it answers"]
    return out


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


def nothing_compared(params: dict, chunks: list, total: int, per_check: dict, complete_: bool,
                     idle: list) -> list[str]:
    """Why the run compared nothing it was asked to ([] when it compared everything)."""
    why = []
    if total == 0:
        why.append("0 chunks selected (no checkable chunk in the archive)")
    elif chunks and not any(e.get("chunks") for e in per_check.values()):      # any check, known here or not
        why.append("no check ran on any chunk")
    for c in params.get("checks") or ():
        c = "controllers" if c == "multistep" else c
        if complete_ and total and not per_check.get(c, {}).get("chunks"):
            why.append(f"the selected check {c} ran on no chunk")
    # DECISION: a chunk compared nothing when no check applies to it at all; a chunk that a
    # --check selection skips is not one (the selection's own check must run somewhere).
    if idle:
        why.append(f"{len(idle)} {'chunk' if len(idle) == 1 else 'chunks'} ran no check: "
                   + ", ".join(str(x) for x in idle[:5]) + (" ..." if len(idle) > 5 else ""))
    return why


def status(s: dict) -> str:
    """The run's verdict (exit statuses in the README): interrupted, mismatches, errors, left out,
    bad members, incomplete, nothing compared, pass."""
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


def complete(run: Run, causes: dict | None = None) -> dict:
    """summary.json of a loaded run: summarize() over its records, with the wall time and the
    interruption of the summary the harness wrote (the wall time estimated from the records'
    file times when there is none)."""
    old = run.summary or {}
    seconds = old.get("seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        seconds = _wall_seconds(run)
    return summarize(run.params, run.chunks, seconds=seconds, interrupted=bool(old.get("interrupted")),
                     causes=causes, run_id=run.path.name)


def write(run: Run, summary: dict, out_dir=None) -> None:
    """(Re)write summary.json atomically (in the run directory unless out_dir is given)."""
    out = Path(out_dir) if out_dir else run.path
    if out == run.path and run.summary == summary:
        return
    text = json.dumps(summary, indent=1, sort_keys=False) + "\n"
    write_atomic(out / "summary.json", lambda tmp: tmp.write_text(text, encoding="utf-8"), ReportError)
