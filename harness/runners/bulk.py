"""make bulk: check a sample of chunks in worker processes, write the run directory, resume, summarise.

DECISION: workers are a process pool (fork), not pytest-xdist: each worker loads the
executable once, checks one chunk per task and writes chunks/<index>.json itself (atomically), so
a killed run loses at most the chunks in flight, and the parent only counts and prints progress.
The pytest layer (tests/differential) stays the developer's loop; bulk needs no pytest machinery.
"""
from __future__ import annotations

import ctypes
import json
import multiprocessing as mp
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
import sys
import time

from corpus.names import printable, printable_lines, shell_word
import reports
from reports.origins import headline as origin_headline

from harness.runners import morph_pseudo, schedule, selection, shard
from harness.runners import edge_chunks
from harness.runners.chunk import check_chunk
from harness.runners import codecov
from harness import provenance
from harness import HarnessError
from harness.runners.failfast import DEFAULT_K, FailFast
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, Options
from harness.profiles import profile, run_profile
from harness.compare.tally import MISMATCHES_KEPT_PER_CHUNK
from harness.runners.run import EXIT, RunDir, code_version, file_identity, param_differences

_W = {}   # per-worker state: game, corpus, profile
REAL_DISC_CHUNKS = 4091


PR_SET_PDEATHSIG = 1


def _die_with_parent(parent):
    """A worker exits when the bulk process dies (killed, SIGTERMed, crashed), so no orphan keeps
    writing into the run directory: the kernel's parent-death signal on Linux, and everywhere a
    watchdog thread that polls the parent's pid."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:          # the parent died before prctl took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)
    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _init_worker(opts: Options, parent=None):
    # The parent handles Ctrl-C and SIGTERM for the whole run and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if parent is not None:
        _die_with_parent(parent)
    _init_serial(opts)
    from multiprocessing import util
    util.Finalize(None, _coverage_at_exit, exitpriority=10)     # the worker's last counts


def _init_serial(opts: Options):
    _W.clear()
    _W["opts"] = opts
    _W["corpus"] = opts.open_corpus()
    _W["game"] = None
    _W["prof"] = profile(opts.profile)


def _game():
    if _W.get("game") is None:
        from harness.driver.game import Game
        _W["game"] = Game(_W["opts"].image, _W["opts"].float_model, coverage=codecov.enabled())
    return _W["game"]


# DECISION (issue 12): a worker takes its machine's coverage counts and rewrites its
# coverage/<host>-<pid>.json at most every COVERAGE_SECONDS, before it drops a machine, and when it
# ends (the serial loop's end, or a pool worker's exit through multiprocessing's finalizers).
# Taking and writing after every chunk cost 4% of the nightly. A worker killed mid-run (Ctrl-C, a
# crash) loses the counts of at most its last COVERAGE_SECONDS; its chunk records are unaffected.
COVERAGE_SECONDS = 20.0


def _check_one(task):
    """Worker: check one chunk, write its record atomically, return a short status."""
    index, cid, run_path, only = task
    res = check_record(_W["opts"], index, cid, only, _W["corpus"].chunk, _game)
    drop = bool(res.get("error")) and not morph_pseudo.is_pseudo(cid)
    _coverage(run_path, force=drop)
    if drop:
        _W["game"] = None             # a fresh machine after an emulation error
    RunDir(run_path).write_chunk(res)
    return record_status(res)


def _coverage(run_path, force=False):
    """Take the machine's counts into this worker's total and write it, when COVERAGE_SECONDS
    have passed since the last write (or force)."""
    if _W.get("game") is None or not codecov.enabled():
        return
    if "coverage" not in _W:
        _W["coverage"] = codecov.Total()
        _W["coverage_at"] = time.monotonic()
    _W["coverage_run"] = run_path
    if force or time.monotonic() - _W["coverage_at"] >= COVERAGE_SECONDS:
        _W["coverage"].add(codecov.take(_W["game"]))
        _W["coverage"].write(run_path)
        _W["coverage_at"] = time.monotonic()


def _coverage_at_exit():
    """The counts not yet written, written (a pool worker's normal end, or the serial loop's)."""
    run_path = _W.pop("coverage_run", None)
    if run_path is not None:
        _coverage(run_path, force=True)
        _W.pop("coverage_run", None)


def record_status(res):
    """(index, mismatches, error?, seconds, error): what the parent counts of a chunk record."""
    return (res["index"], len(res["mismatches"]) + res.get("dropped_mismatches", 0), bool(res.get("error")),
            res["seconds"], res.get("error"))


def check_record(opts, index, cid, only, chunk_of, game_of):
    """The record of chunk `cid` (interfaces.md §4): `chunk_of(cid)` gives the chunk and
    `game_of()` the loaded executable, so a process pool and a cluster worker check alike."""
    ctx = opts.context(cid)
    if edge_chunks.is_edge(cid):      # the edge chunks beyond the disc (corpus/synth/edge.py)
        return edge_chunks.check_edge(game_of(), cid, ctx, run_profile(opts), index, only)
    if morph_pseudo.is_pseudo(cid):   # the synthetic Modify blends (checks.md §5.2)
        return morph_pseudo.check_pseudo(game_of(), cid, ctx, index)
    try:
        ch = chunk_of(cid)
        game = game_of()
    except Exception as exc:          # a broken image or an unreadable chunk: this chunk's error
        return {"chunk": cid, "index": index, "seconds": 0.0, "counters": {}, "quirks": {},
                "mismatches": [], "error": {"type": type(exc).__name__, "message": str(exc),
                                            "check": "setup"}}
    res = check_chunk(game, ch, ctx, run_profile(opts), only=only, index=index)
    if res["mismatches"] and not res.get("error") and wants_shrink(opts):
        attach_shrunk(game, ch, ctx, res)
        # DECISION: provenance is traced on the chunks that are shrunk (the first
        # AUTO_SHRINK_CHUNKS failing chunks per worker by default), provenance.PER_CHUNK each
        provenance.attach(game, ch, ctx, res)
    return res


AUTO_SHRINK_CHUNKS = 10   # per worker, when neither --shrink nor --no-shrink is given


def wants_shrink(opts):
    """DECISION: by default each worker shrinks the failing cases of its first AUTO_SHRINK_CHUNKS
    failing chunks (a report then shows shrunk repros without a broken build costing 20 replays per
    chunk); --shrink shrinks every failing chunk, --no-shrink none."""
    if opts.shrink is not None:
        return opts.shrink
    _W["shrunk_chunks"] = _W.get("shrunk_chunks", 0) + 1
    return _W["shrunk_chunks"] <= AUTO_SHRINK_CHUNKS


def attach_shrunk(game, ch, ctx, res):
    """Shrink the first mismatch of each check of a failing chunk (`--shrink`)."""
    from harness.shrinking import shrink_mismatch
    seen = set()
    for m in res["mismatches"]:
        if m["check"] in seen:
            continue
        seen.add(m["check"])
        try:
            m["shrunk"] = shrink_mismatch(game, ch, ctx, m, max_replays=20)
        except Exception as exc:
            m["shrunk"] = None
            res.setdefault("notes", []).append(f"shrinking {m['check']} failed: {type(exc).__name__}: {exc}")


def prepare(opts: Options, argv):
    """Validate inputs, choose the chunks, and open (or resume) the run directory."""
    corpus = opts.open_corpus()
    opts.validate_image()
    n_chunks = len(corpus.chunk_ids())
    if (opts.disc or opts.corpus_image) and n_chunks != REAL_DISC_CHUNKS:
        print(f"warning: {opts.disc or opts.data} has {n_chunks} Anime chunks; the real disc has "
              f"{REAL_DISC_CHUNKS} (corpus-stats.md)", file=sys.stderr)
    bad = list(getattr(corpus, "bad", None) or [])
    for b in bad[:20]:
        print(printable(f"{'warning' if opts.allow_bad_members else 'error'}: bad member {b.get('member')} "
                        f"at offset 0x{int(b.get('offset') or 0):X}: {b.get('error')}"), file=sys.stderr)
    if len(bad) > 20:
        print(f"... and {len(bad) - 20} more bad members (summary.json lists them all)", file=sys.stderr)
    # DECISION: a --check run samples from the chunks whose records that check needs.
    ids, covered, missed = selection.quirk_sample(corpus, selection.pool(corpus, selection.kinds_for(opts.checks)),
                                                  -1 if opts.chunk_ids else opts.n, opts.seed)
    # DECISION: the synthetic Modify pseudo-chunks join a selection of archive chunks, never stand
    # in for one: an archive with nothing to check still compares nothing.
    if ids and (not opts.checks or "morph" in opts.checks):
        ids += morph_pseudo.ids()
    if ids:                           # the edge chunks beyond the disc join every selection too
        ids += edge_chunks.ids(opts.checks)
    if opts.chunk_ids:
        ids = opts.chunk_ids
    shard_info = None
    if opts.shard:                    # one balanced slice of the selection (harness/runners/shard.py)
        ids, shard_info = shard.select(ids, [shard.predicted_cost(corpus, c) for c in ids], *opts.shard)
    params = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": list(argv),
              "seed": opts.seed, "profile": opts.profile, "float_model": opts.float_model,
              "n": opts.n, "jobs": opts.jobs, "checks": sorted(opts.checks) if opts.checks else None,
              "image": file_identity(opts.image), "data": file_identity(opts.data_path(corpus)),
              "corpus_chunks": len(corpus.chunk_ids()), "code": code_version(),
              "disc": file_identity(opts.disc) if opts.disc else None, "chunks": ids,
              **({"shard": shard_info} if shard_info else {}), "bad_members": bad, "allow_bad_members": bool(opts.allow_bad_members)}
    if covered is not None:           # the quirk classes the sample met and missed (selection.quirk_sample)
        params["sample_quirks"] = {"covered": covered, "missed": missed}
    if opts.out:
        rd = RunDir.create_at(opts.out, params)
        same_run_or_refuse(rd, params, opts)
    elif opts.resume:
        rd = RunDir(opts.resume)
        if not os.path.isfile(rd.params_path):
            raise HarnessError(f"--resume {rd.path}: not a run directory (no params.json)")
        same_run_or_refuse(rd, params, opts)
    else:
        rd = None if opts.fresh else RunDir.find_resumable(params, opts.runs)
        rd = rd or RunDir.create(params, opts.runs)
    rd.link_latest()
    return rd


def same_run_or_refuse(rd, params, opts):
    """A run directory is resumed only with the parameters it was started with (`--force`: anyway).

    DECISION: with --chunks the explicit ids are the selection, so n is not compared; without it
    the sample follows from (n, seed, data), so the chunk list is compared too."""
    old = rd.params()
    ignore = ("n",) if opts.chunk_ids else ()
    diff = param_differences(old, params, ignore)
    if diff and not opts.force:
        raise HarnessError(f"{rd.path} was run with other parameters; refusing to mix results "
                           f"({'; '.join(diff)}). Repeat its parameters, or pass --force")
    if diff:
        print(f"warning: --force: resuming {rd.path} despite: {'; '.join(diff)}", file=sys.stderr)


def resume_command(rd, opts):
    """The command that resumes this run with its own parameters."""
    p = rd.params()
    parts = [".venv/bin/python", "-m", "harness", "bulk", "--resume", shell_word(rd.path),
             "--n", str(p.get("n")), "--seed", str(p.get("seed")), "--profile", shell_word(p.get("profile")),
             "--float-model", shell_word(p.get("float_model")), "--jobs", str(opts.jobs)]
    for c in p.get("checks") or ():
        parts += ["--check", shell_word(c)]
    image = None if opts.image == DEFAULT_IMAGE or getattr(opts, "image_from_disc", False) else opts.image
    for flag, val in (("--image", image),
                      ("--data", opts.data if opts.data != DEFAULT_DATA else None), ("--disc", opts.disc)):
        if val:
            parts += [flag, shell_word(val)]
    if opts.chunk_ids:
        parts += ["--chunks", shell_word(",".join(opts.chunk_ids))]
    if opts.allow_bad_members:
        parts.append("--allow-bad-members")
    if p.get("shard"):
        parts += ["--shard", shard.label(p)]
    if opts.cluster:
        parts += ["--cluster", shell_word(opts.cluster)]
    return " ".join(parts)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI timeout, `kill`): handled like Ctrl-C."""


def _on_sigterm(signum, frame):
    raise Terminated()


def run_bulk(opts: Options, argv=()):
    rd = prepare(opts, argv)
    ids = rd.params()["chunks"]
    done = rd.done_indices()
    todo = [(i, cid, rd.path, opts.checks) for i, cid in zip(shard.indices_of(rd.params()), ids) if i not in done]
    todo = schedule.order(todo, lambda cid: opts.open_corpus().chunk(cid).data,
                          schedule.last_timings(os.path.dirname(rd.path), rd.path))
    out = sys.stderr
    print(f"eediff bulk: run {rd.path}\n  corpus {rd.params().get('corpus_chunks')} Anime chunks; {len(ids)} chunks, {len(done)} already done, "
          f"{len(todo)} to check; profile {opts.profile}, float {opts.float_model}, seed {opts.seed}, "
          f"jobs {opts.jobs}", file=out)
    t0 = time.time() - previous_seconds(rd)
    progress = Progress(len(ids), len(done), out)
    ff = FailFast(getattr(opts, "fail_fast", DEFAULT_K))
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if threading.current_thread() is threading.main_thread() else None
    try:
        if opts.cluster:              # a Dask scheduler instead of the process pool (harness/runners/cluster.py)
            from harness.runners.cluster import run_cluster
        if not opts.cluster and (opts.jobs <= 1 or len(todo) <= 1):
            _init_serial(opts)
            try:
                for task in todo:
                    r = _check_one(task)
                    progress.update(*r[:4])
                    if ff.observe(r[4], task[1]):
                        break
            finally:
                _coverage_at_exit()
        elif not (run_cluster if opts.cluster else run_pool)(opts, rd, todo, progress, out, ff):
            rd.summarize(time.time() - t0)
            print(f"workers keep dying; resume with: {resume_command(rd, opts)}", file=out)
            return 1
    except KeyboardInterrupt as exc:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        progress.finish()
        summary = rd.summarize(time.time() - t0, interrupted=True)
        print(printable_lines(format_summary(summary)), file=sys.stdout)
        render_report(rd.path)
        print(f"\n{what}; resume with: {resume_command(rd, opts)}", file=out)
        return EXIT["interrupted"]
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    progress.finish()
    if ff.stop:
        print(ff.stop, file=out)
    codecov.finish(rd.path)
    summary = rd.summarize(time.time() - t0)
    print(printable_lines(format_summary(summary)), file=sys.stdout)
    origin = origin_headline(reports.load_run(rd.path).chunks)
    if origin:
        print(printable(f"  by instruction: {origin}"), file=sys.stdout)
    render_report(rd.path)
    if ff.stop:
        print(ff.stop, file=sys.stdout)
        return EXIT[summary["status"]] or EXIT["errors"]       # a fail-fast stop is never a pass
    return EXIT[summary["status"]]


MAX_POOL_RESTARTS = 3


def run_pool(opts, rd, todo, progress, out, ff=None):
    """Check `todo` in opts.jobs worker processes; a dead worker (killed, out of memory) costs only
    the chunks in flight: the pool is restarted on the chunks with no record yet. False when the
    workers keep dying."""
    ctx = mp.get_context("fork")
    pending = list(todo)
    for attempt in range(MAX_POOL_RESTARTS + 1):
        ex = ProcessPoolExecutor(opts.jobs, mp_context=ctx, initializer=_init_worker,
                                 initargs=(opts, os.getpid()))
        try:
            for fut in as_completed([ex.submit(_check_one, t) for t in pending]):
                r = fut.result()
                progress.update(*r[:4])
                if ff is not None and ff.observe(r[4], r[0]):
                    # the chunks in flight finish (their records and the workers' last coverage
                    # counts are written before the summary); those not started are dropped
                    ex.shutdown(wait=True, cancel_futures=True)
                    return True
            ex.shutdown(wait=True)
            return True
        except BrokenProcessPool:
            done = rd.done_indices()
            pending = [t for t in pending if t[0] not in done]
            progress.done = len(done)
            print(f"\na worker died; restarting the workers on the {len(pending)} chunks not yet written",
                  file=out)
        except BaseException:
            stop_workers(ex)          # Ctrl-C, SIGTERM, a full disk: no worker outlives the run
            raise
        finally:
            ex.shutdown(wait=False, cancel_futures=True)
            rd.remove_temp_files()
    return False


def stop_workers(ex):
    procs = list((getattr(ex, "_processes", None) or {}).values())
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(5)


def previous_seconds(rd):
    """Wall time already spent on a resumed run (from its interim summary), else 0."""
    try:
        from harness.runners.run import read_json
        return float(read_json(os.path.join(rd.path, "summary.json")).get("seconds") or 0.0)
    except (OSError, ValueError):
        return 0.0


class Progress:
    """One progress line: done/total, mismatches, errors, chunks/min, ETA."""

    def __init__(self, total, done, out):
        self.total, self.done, self.out = total, done, out
        self.start_done, self.t0 = done, time.time()
        self.mismatches = self.errors = 0
        self.tty = hasattr(out, "isatty") and out.isatty()
        self.last_print = 0.0

    def update(self, index, mismatches, error, seconds):
        self.done += 1
        self.mismatches += mismatches
        self.errors += int(error)
        now = time.time()
        if self.tty or now - self.last_print > 5 or self.done == self.total:
            self.last_print = now
            self.out.write(("\r" if self.tty else "") + self.line() + ("" if self.tty else "\n"))
            self.out.flush()

    def line(self):
        el = time.time() - self.t0
        n = self.done - self.start_done
        rate = 60.0 * n / el if el > 0 else 0.0
        eta = (self.total - self.done) / (rate / 60.0) if rate else float("nan")
        eta_s = "?" if eta != eta else f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
        return (f"[{self.done}/{self.total}] mismatches {self.mismatches} errors {self.errors} "
                f"{rate:.1f} chunks/min ETA {eta_s}")

    def finish(self):
        if self.tty:
            self.out.write("\n")


STATUS_TEXT = {"pass": "PASS", "mismatches": "FAIL (mismatches)", "errors": "FAIL (harness errors)",
               "bad members": "FAIL (bad archive members)", "nothing compared": "NOTHING COMPARED",
               "interrupted": "INTERRUPTED", "incomplete": "INCOMPLETE"}


def format_summary(s):
    st = s.get("status") or "pass"
    lines = [f"run {s['run_id']}: {STATUS_TEXT.get(st, st)} (exit {EXIT.get(st, 1)}): "
             f"{s['chunks_done']}/{s['chunks_total']} chunks, "
             f"{s['chunks_failed']} failed, {s['mismatches']} mismatches, {s['errors']} errors, "
             f"{s['seconds']:.0f} s ({s['chunks_per_minute']} chunks/min)"]
    lines += chunk_origin_lines(s)
    bad = s.get("bad_members") or []
    if bad:
        lines.append(f"  {len(bad)} bad archive member(s)"
                     + (" (allowed by --allow-bad-members)" if s.get("allow_bad_members") else
                        "; their chunks were not checked (--allow-bad-members accepts this):"))
        for b in bad[:10]:
            lines.append(f"    {b.get('member')} at offset 0x{int(b.get('offset') or 0):X}: "
                         f"{b.get('kind') or 'error'}: {b.get('error')}")
        if len(bad) > 10:
            lines.append(f"    ... and {len(bad) - 10} more (summary.json)")
    for why in s.get("nothing_compared") or ():
        lines.append(f"  nothing compared: {why}")
    if s.get("mismatches_by_check"):
        lines.append(mismatch_count_line(s))
    lines.append("  counters:")
    for k, v in s["counters"].items():
        lines.append(f"    {k:32s} {v}")
    w = s.get("worst_keyed_rotation")
    if w:
        lines.append(f"    {'worst keyed rotation d':32s} {w['d']:.3g} (bound {w['bound']:.3g}, "
                     f"{w['chunk']} track {w['track']} t={w['time']}, {w.get('check')})")
    if s["quirks"]:
        lines.append("  quirk coverage:")
        for k, v in s["quirks"].items():
            lines.append(f"    {k:40s} {v}")
    if s.get("seconds_by_check"):
        lines.append("  seconds by check: " + ", ".join(f"{k} {v}" for k, v in s["seconds_by_check"].items()))
    if s.get("machine_steps") and s.get("chunk_seconds"):
        lines.append(f"  machine: {s['machine_steps']} instructions in {s['chunk_seconds']} worker-seconds "
                     f"({s.get('cpu_seconds')} CPU-seconds, {s.get('cpu_seconds_per_chunk')} per chunk)")
        mc = s.get("machine_cpu_seconds") or {}
        inside = sum(mc.values())
        # DECISION: CPU figures rounded to 0 (a run of a few tiny chunks) print no ratios.
        if mc and s.get("cpu_seconds") and inside > 0:
            # the machine's share is timed per call (driver/game.py, perf_counter): on an idle
            # machine it is CPU time, on a shared one it includes time the worker waited
            lines.append(f"  time in the machine {inside:.1f} s ({100 * inside / s['cpu_seconds']:.0f}% of the CPU: "
                         + ", ".join(f"{k} {v:.1f}" for k, v in mc.items())
                         + f"); reference + harness {s['cpu_seconds'] - inside:.1f} s; "
                         f"{s['machine_steps'] / inside / 1e6:.2f} M instr/s")
    lines += failing_chunk_lines(s)
    return "\n".join(lines)


def chunk_origin_lines(s):
    """The archive's chunks and the chunks built by code (Modify blends, edge chunks) counted apart,
    and the quirk classes a sample met and missed."""
    syn = s.get("synthetic_chunks") or {}
    arc = s.get("archive_chunks") or {}
    lines = []
    if syn.get("done"):
        lines.append(f"  archive chunks {arc.get('done')} ({arc.get('failed')} failed, {arc.get('mismatches')} "
                     f"mismatches); built by code {syn['done']} ({syn.get('failed')} failed, "
                     f"{syn.get('mismatches')} mismatches: synthetic::morph/ and synthetic::edge/)")
    q = s.get("sample_quirks")
    if q:
        met, missed = q.get("covered") or [], q.get("missed") or []
        lines.append(f"  sample meets {len(met)} of {len(met) + len(missed)} quirk classes of the pool: "
                     + (", ".join(met) or "none") + "; missed: " + (", ".join(missed) or "none"))
    return lines


def mismatch_count_line(s):
    """Per-check counts that add up to the top line's total: the recorded ones, plus those past
    the per-chunk cap (counted, not recorded)."""
    text = "  mismatches by check: " + ", ".join(f"{k} {v}" for k, v in s["mismatches_by_check"].items())
    beyond = s.get("mismatches_beyond_cap") or 0
    if beyond:
        text += (f"; {beyond} more past the cap of {MISMATCHES_KEPT_PER_CHUNK} recorded per chunk "
                 f"(counted in the total, not recorded)")
    return text


def failing_chunk_lines(s):
    """The closing block: which chunks failed, each one's first mismatch and one-line repro."""
    failing = s.get("failing_chunks") or []
    if not failing:
        return []
    n = s.get("chunks_failed") or len(failing)
    lines = [f"  failing chunks ({'first %d of %d' % (len(failing), n) if n > len(failing) else n};"
             f" report.html has every mismatch):"]
    for f in failing:
        head = f"    {f['chunk']}: {f['mismatches']} mismatch{'es' if f['mismatches'] != 1 else ''}"
        if f.get("error"):
            head += f"; error {f['error'][:160]}"
        lines.append(head)
        m = f.get("first")
        if m:
            where = [m["check"]] + [f"{k} {m[k]}" for k in ("object", "track", "time", "step")
                                    if m.get(k) is not None]
            lines.append(f"      first: {' | '.join(map(str, where))} | {m['field']}: "
                         f"reference {short(m['expected'])}, game {short(m['got'])}"
                         + (f" ({m['ulp']} ulp)" if m.get("ulp") is not None else ""))
        if f.get("repro"):
            lines.append(f"      repro: {f['repro']}")
    return lines


def short(v, limit=100):
    from corpus.note_text import notes_text
    text = v if isinstance(v, str) else (notes_text(v) or json.dumps(v))
    return text if len(text) <= limit else text[:limit] + " ..."


def render_report(run_path):
    """Render HTML + JUnit with reports.render(run_dir); print where the report is."""
    try:
        out = reports.render(run_path)
    except Exception as exc:  # a reports failure must not hide the run's own result
        print(f"reports.render({run_path}) failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    path = str(out) if out else os.path.join(run_path, "report.html")
    print(f"report: {path}")
    return path
