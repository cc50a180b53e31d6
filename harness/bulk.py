"""make bulk: check a sample of chunks in worker processes, write the run directory, resume, summarise.

DECISION: workers are a process pool (fork), not pytest-xdist: each worker loads the
executable once, checks one chunk per task and writes chunks/<index>.json itself (atomically), so
a killed run loses at most the chunks in flight, and the parent only counts and prints progress.
The pytest layer (tests/differential) stays the developer's loop; bulk needs no pytest machinery.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
import sys
import time

from . import morph_pseudo, selection
from .chunk import check_chunk
from .options import Options
from .profiles import profile
from .run import RunDir, code_version, file_identity

_W = {}   # per-worker state: game, corpus, profile
REAL_DISC_CHUNKS = 4091


def _init_worker(opts: Options):
    _W.clear()
    _W["opts"] = opts
    _W["corpus"] = opts.open_corpus()
    _W["game"] = None
    _W["prof"] = profile(opts.profile)


def _game():
    if _W.get("game") is None:
        from .game import Game
        _W["game"] = Game(_W["opts"].image, _W["opts"].float_model)
    return _W["game"]


def _check_one(task):
    """Worker: check one chunk, write its record atomically, return a short status."""
    index, cid, run_path, only = task
    opts = _W["opts"]
    ctx = opts.context(cid)
    if morph_pseudo.is_pseudo(cid):   # the synthetic Modify blends (checks.md §5.2)
        res = morph_pseudo.check_pseudo(_game(), cid, ctx, index)
        RunDir(run_path).write_chunk(res)
        return index, len(res["mismatches"]) + res.get("dropped_mismatches", 0), bool(res.get("error")), res["seconds"]
    try:
        ch = _W["corpus"].chunk(cid)
        game = _game()
    except Exception as exc:          # a broken image or an unreadable chunk: this chunk's error
        res = {"chunk": cid, "index": index, "seconds": 0.0, "counters": {}, "quirks": {},
               "mismatches": [], "error": {"type": type(exc).__name__, "message": str(exc),
                                           "check": "setup"}}
    else:
        res = check_chunk(game, ch, ctx, _W["prof"], only=only, index=index)
        if res["mismatches"] and not res.get("error") and wants_shrink(opts):
            attach_shrunk(game, ch, ctx, res)
        if res.get("error"):
            _W["game"] = None         # a fresh machine after an emulation error
    RunDir(run_path).write_chunk(res)
    return index, len(res["mismatches"]) + res.get("dropped_mismatches", 0), bool(res.get("error")), res["seconds"]


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
    from .shrink import shrink_mismatch
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
    ids = selection.sample(selection.pool(corpus), opts.n, opts.seed)
    if not opts.checks or "morph" in opts.checks:
        ids += morph_pseudo.ids()
    if opts.chunk_ids:
        ids = opts.chunk_ids
    params = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": list(argv),
              "seed": opts.seed, "profile": opts.profile, "float_model": opts.float_model,
              "n": opts.n, "jobs": opts.jobs, "checks": sorted(opts.checks) if opts.checks else None,
              "image": file_identity(opts.image), "data": file_identity(opts.data_path(corpus)),
              "corpus_chunks": len(corpus.chunk_ids()), "code": code_version(),
              "disc": file_identity(opts.disc) if opts.disc else None, "chunks": ids}
    if opts.out:
        rd = RunDir.create_at(opts.out, params)
        if not opts.chunk_ids:
            ids = rd.params()["chunks"]
    elif opts.resume:
        rd = RunDir(opts.resume)
        if rd.params().get("chunks") != ids and not opts.chunk_ids:
            ids = rd.params()["chunks"]
    else:
        rd = None if opts.fresh else RunDir.find_resumable(params, opts.runs)
        rd = rd or RunDir.create(params, opts.runs)
    rd.link_latest()
    return rd


def run_bulk(opts: Options, argv=()):
    rd = prepare(opts, argv)
    ids = rd.params()["chunks"]
    done = rd.done_indices()
    todo = [(i, cid, rd.path, opts.checks) for i, cid in enumerate(ids) if i not in done]
    out = sys.stderr
    print(f"eediff bulk: run {rd.path}\n  corpus {rd.params().get('corpus_chunks')} Anime chunks; {len(ids)} chunks, {len(done)} already done, "
          f"{len(todo)} to check; profile {opts.profile}, float {opts.float_model}, seed {opts.seed}, "
          f"jobs {opts.jobs}", file=out)
    t0 = time.time() - previous_seconds(rd)
    progress = Progress(len(ids), len(done), out)
    try:
        if opts.jobs <= 1:
            _init_worker(opts)
            for task in todo:
                progress.update(*_check_one(task))
        elif not run_pool(opts, rd, todo, progress, out):
            rd.summarize(time.time() - t0)
            print(f"workers keep dying; resume with: python -m harness bulk --resume {rd.path}", file=out)
            return 1
    except KeyboardInterrupt:
        print(f"\ninterrupted; resume with: python -m harness bulk --resume {rd.path}", file=out)
        rd.summarize(time.time() - t0)
        return 130
    progress.finish()
    summary = rd.summarize(time.time() - t0)
    print(format_summary(summary), file=sys.stdout)
    render_report(rd.path)
    return 0 if summary["mismatches"] == 0 and summary["errors"] == 0 and summary["complete"] else 1


MAX_POOL_RESTARTS = 3


def run_pool(opts, rd, todo, progress, out):
    """Check `todo` in opts.jobs worker processes; a dead worker (killed, out of memory) costs only
    the chunks in flight: the pool is restarted on the chunks with no record yet. False when the
    workers keep dying."""
    ctx = mp.get_context("fork")
    pending = list(todo)
    for attempt in range(MAX_POOL_RESTARTS + 1):
        ex = ProcessPoolExecutor(opts.jobs, mp_context=ctx, initializer=_init_worker, initargs=(opts,))
        try:
            for fut in as_completed([ex.submit(_check_one, t) for t in pending]):
                progress.update(*fut.result())
            ex.shutdown(wait=True)
            return True
        except BrokenProcessPool:
            done = rd.done_indices()
            pending = [t for t in pending if t[0] not in done]
            progress.done = len(done)
            print(f"\na worker died; restarting the workers on the {len(pending)} chunks not yet written",
                  file=out)
        finally:
            ex.shutdown(wait=False, cancel_futures=True)
    return False


def previous_seconds(rd):
    """Wall time already spent on a resumed run (from its interim summary), else 0."""
    try:
        from .run import read_json
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


def format_summary(s):
    lines = [f"run {s['run_id']}: {s['chunks_done']}/{s['chunks_total']} chunks, "
             f"{s['chunks_failed']} failed, {s['mismatches']} mismatches, {s['errors']} errors, "
             f"{s['seconds']:.0f} s ({s['chunks_per_minute']} chunks/min)"]
    if s.get("mismatches_by_check"):
        lines.append("  mismatches by check: " + ", ".join(f"{k} {v}" for k, v in s["mismatches_by_check"].items()))
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
        if mc and s.get("cpu_seconds"):
            inside = sum(mc.values())
            lines.append(f"  CPU in the machine {inside:.1f} s ({100 * inside / s['cpu_seconds']:.0f}%: "
                         + ", ".join(f"{k} {v:.1f}" for k, v in mc.items())
                         + f"); reference + harness {s['cpu_seconds'] - inside:.1f} s; "
                         f"{s['machine_steps'] / inside / 1e6:.2f} M instr/s")
    return "\n".join(lines)


def render_report(run_path):
    """Render HTML + JUnit with reports.render(run_dir) when helper H's package provides it."""
    try:
        import reports
        render = getattr(reports, "render", None)
        if render is None:
            return None
        out = render(run_path)
        path = str(out) if out else os.path.join(run_path, "report.html")
        print(f"report: {path}")
        return path
    except Exception as exc:  # a reports failure must not hide the run's own result
        print(f"reports.render({run_path}) failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
