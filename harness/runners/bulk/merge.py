"""`make merge RUNS="dir1 dir2 ..." OUT=dir`: the shard runs of one selection as one run directory.

The merged directory is the run an unsplit bulk would have written: params.json with the whole
selection, every chunk record under its selection index, the shards' code coverage summed into
one coverage.json, one summary, one report and one JUnit file. Only its params keep how it was split ("merged_from"), which the report's Run table shows.
"""
from __future__ import annotations

import itertools
import os
import sys

from corpus.names import printable, printable_lines
from ground.exits import EXIT

from harness import HarnessError
from harness.commands import merge_command
from harness.runners.bulk import codecov
from harness.runners.bulk.run import (RunDir, RunDirError, chunk_record, param_differences, read_summary,
                                      refuse_foreign)
from harness.runners.bulk.shard import label, selection_digest

# DECISION: what may differ between the shards of one run: their own chunk lists and shard
# numbers; everything else that makes two runs the same run (run.RESUME_PARAMS) must agree.
MAY_DIFFER = ("chunks", "shard")


def open_shard(path):
    rd = RunDir(path)
    if not os.path.isfile(rd.params_path):
        raise HarnessError(f"{path}: not a run directory (no params.json)")
    try:
        p = rd.params()
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{rd.params_path}: unreadable ({exc})") from None
    if not p.get("shard"):
        raise HarnessError(f"{path}: not a shard run (it was not started with --shard K/M)")
    return rd, p


def check_compatible(shards):
    """Refuse shards of different runs; name the missing ones. shards: [(rd, params)]."""
    rd0, p0 = shards[0]
    m = p0["shard"]["m"]
    for rd, p in shards[1:]:
        diff = param_differences(p0, p, MAY_DIFFER)
        sh, sh0 = p["shard"], p0["shard"]
        if sh["m"] != m:
            diff.append(f"shard count: run {m}, now {sh['m']}")
        if sh.get("selection_sha256") != sh0.get("selection_sha256"):
            diff.append(f"selection: {sh0.get('selection_size')} chunks (sha256 "
                        f"{str(sh0.get('selection_sha256'))[:12]}), now {sh.get('selection_size')} "
                        f"chunks (sha256 {str(sh.get('selection_sha256'))[:12]})")
        if diff:
            raise HarnessError(f"{rd.path} (shard {label(p)}) was run with other parameters than "
                               f"{rd0.path} (shard {label(p0)}); refusing to merge: {'; '.join(diff)}")
    seen = {}
    for rd, p in shards:
        k = p["shard"]["k"]
        if k in seen:
            raise HarnessError(f"shard {k}/{m} given twice: {seen[k]} and {rd.path}")
        seen[k] = rd.path
    missing = list(itertools.islice((f"{k}/{m}" for k in range(1, m + 1) if k not in seen), 20))
    if missing:
        raise HarnessError(f"missing shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {m} "
                           f"(have {', '.join(f'{k}/{m}' for k in sorted(seen))}): run "
                           + "; ".join(f"make bulk ... SHARD={s}" for s in missing) + " with the same parameters")


def whole_selection(shards):
    """The selection's chunk ids in order, rebuilt from the shards' slices (checked to be exact)."""
    p0 = shards[0][1]
    size = p0["shard"]["selection_size"]
    ids = [None] * size
    for rd, p in shards:
        sh = p["shard"]
        if len(sh["indices"]) != len(p.get("chunks") or ()):
            raise HarnessError(f"{rd.params_path}: shard {label(p)} lists {len(sh['indices'])} indices "
                               f"for {len(p.get('chunks') or ())} chunks")
        for i, cid in zip(sh["indices"], p["chunks"]):
            if not 0 <= i < size or ids[i] is not None:
                raise HarnessError(f"{rd.params_path}: shard {label(p)} claims selection index {i}, "
                                   f"outside the selection or another shard's")
            ids[i] = cid
    if any(c is None for c in ids) or selection_digest(ids) != p0["shard"]["selection_sha256"]:
        raise HarnessError("the shards' slices do not put back the selection they were cut from")
    return ids


def shard_records(rd, p):
    """The shard's chunk records, each checked against its slice; refuses an incomplete shard."""
    want = dict(zip(p["shard"]["indices"], p["chunks"]))
    have = rd.done_indices(remove_torn=False) if os.path.isdir(rd.chunks_dir) else set()
    lost = sorted(set(want) - have)
    if lost:
        raise HarnessError(f"{rd.path} (shard {label(p)}) is incomplete: {len(lost)} of {len(want)} chunks "
                           f"have no record (first: index {lost[0]}, {printable(want[lost[0]])}); resume "
                           f"it before merging")
    for i in sorted(want):
        path = rd.chunk_path(i)
        rec = chunk_record(path)            # as the shard wrote it, validated (reports.records)
        if rec.get("index") != i or rec.get("chunk") != want[i]:
            raise HarnessError(f"{path}: the record is of {printable(rec.get('chunk'))} at index "
                               f"{rec.get('index')}, not {printable(want[i])} at index {i}")
        yield rec


def merge_runs(paths, out, argv=None):
    if not paths:
        raise HarnessError("RUNS is empty: name the shard run directories to merge")
    if not os.path.exists(RunDir(out).params_path):
        refuse_foreign(out)
    shards = [open_shard(p) for p in paths]
    check_compatible(shards)
    shards.sort(key=lambda s: s[1]["shard"]["k"])
    ids = whole_selection(shards)
    target = RunDir(out)
    if os.path.exists(target.params_path):
        raise HarnessError(f"OUT={out} is already a run directory; merge into a new one")
    p0 = shards[0][1]
    merged_from, seconds = [], 0.0
    for rd, p in shards:
        s = read_summary(os.path.join(rd.path, "summary.json"), {})
        seconds += float(s.get("seconds") or 0.0)
        merged_from.append({"shard": label(p), "run": rd.path, "run_id": p.get("run_id"),
                            "started": p.get("started"), "jobs": p.get("jobs"), "seconds": s.get("seconds"),
                            "chunks": len(p["chunks"])})
    params = {k: v for k, v in p0.items() if k not in ("shard", "run_id", "key")}
    params.update(chunks=ids, argv=list(argv if argv is not None else sys.argv), merged_from=merged_from,
                  rerun=merge_command([m["run"] for m in merged_from], out))
    try:
        rd = RunDir.create_at(out, params)
    except RunDirError:
        raise
    except OSError as exc:
        raise RunDirError(exc.errno, exc.strerror or str(exc), exc.filename or out) from None
    for srd, p in shards:
        for rec in shard_records(srd, p):
            rd.write_chunk(rec)
    # the game's code coverage of the whole selection: the shards' counts summed (a shard run
    # with EEDIFF_CODE_COVERAGE=0 has none and adds nothing)
    codecov.merge_files([os.path.join(srd.path, codecov.FILE) for srd, _p in shards], rd.path)
    # DECISION: the merged run's duration is the sum of its shards' durations (the machine time
    # the run took, wherever it ran); chunks/minute is then per machine, as for one bulk.
    summary = rd.summarize(seconds)
    from harness.runners.bulk.command import render_report
    from harness.runners.bulk.terminal import format_summary
    print(printable_lines(format_summary(summary)))
    print(f"merged {len(shards)} shards into {rd.path}")
    render_report(rd.path)
    return EXIT[summary["status"]]
