"""make bulk: check a sample of chunks in worker processes, write the run directory, resume, summarise.

DECISION: workers are a process pool (fork), not pytest-xdist: each worker loads the
executable once, checks a batch of chunks per task (harness/runners/bulk/tasks.py) and writes
chunks/<index>.json itself (atomically), so a killed run loses at most the chunks in flight, and
the parent only counts and prints progress.
The pytest layer (tests/differential) stays the developer's loop; bulk needs no pytest machinery.
"""
from __future__ import annotations

import os
import signal
import threading
import sys
import time

from corpus.names import printable, printable_lines
from ground.exits import EXIT
import reports
from reports.origins import headline as origin_headline

from harness.runners.cases import morph_pseudo

from harness.runners.bulk import schedule, selection, shard
from harness.runners.cases import edge_chunks
from harness.runners.bulk import codecov
from harness import HarnessError
from harness.runners.bulk.failfast import DEFAULT_K, FailFast
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, Options
from harness.runners.bulk.run import RunDir, code_version, file_identity, moves_latest, param_differences
from harness.runners.bulk.terminal import Progress, format_summary, run_header
from harness.runners.bulk.tasks import Inline, Pool, run_tasks
from harness.runners.bulk.worker import Setup, check_record  # noqa: F401  (bulk.check_record: a record as a worker checks it)

REAL_DISC_CHUNKS = 4091


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
    bad += truncation_as_bad_member(opts)
    # DECISION: a --check run samples from the chunks whose records that check needs.
    ids, covered, missed = selection.quirk_sample(corpus, selection.pool(corpus, selection.kinds_for(opts.checks)),
                                                  -1 if opts.chunk_ids else opts.n, opts.seed)
    # DECISION: the synthetic Modify pseudo-chunks join a selection of archive chunks, never stand
    # in for one: an archive with nothing to check still compares nothing.
    if ids:
        ids += synthetic_ids(opts.checks)
    if opts.chunk_ids:
        ids = opts.chunk_ids
    shard_info = None
    if opts.shard:                    # one balanced slice of the selection (harness/runners/bulk/shard.py)
        ids, shard_info = shard.select(ids, [shard.predicted_cost(corpus, c) for c in ids], *opts.shard)
    params = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": list(argv),
              "seed": opts.seed, "profile": opts.profile, "float_model": opts.float_model,
              "n": opts.n, "jobs": opts.jobs, "checks": sorted(opts.checks) if opts.checks else None,
              "image": file_identity(opts.image), "data": file_identity(opts.data_path()),
              "corpus_chunks": len(corpus.chunk_ids()), "code": code_version(),
              "disc": file_identity(opts.disc) if opts.disc else None, "chunks": ids,
              **({"shard": shard_info} if shard_info else {}), "bad_members": bad, "allow_bad_members": bool(opts.allow_bad_members),
              **({"model": opts.model} if opts.model else {}), **game_side(opts)}
    from harness.commands import rerun_command
    params["rerun"] = rerun_command(run_options(params, opts), opts.out)   # the report shows it
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
    rd = hold_run_dir(rd, params, opts)
    if moves_latest(params):
        rd.link_latest()
    return rd


def game_side(opts):
    """The params that say who answers for the game (run.RESUME_PARAMS): the sidecar and the
    resident overlay in use (their files' identities), lockstep, the archive's index executable."""
    from eemu_ext.errors import ElfError
    from eemu_ext.loading.overlays import find_prg
    from eemu_ext.loading.sidecar import beside
    ma = opts.machine_args()
    out = {"syms": file_identity(ma["syms"] or beside(opts.image))}
    ovl = ma["overlay"]
    if ovl:
        name, prg = ovl if isinstance(ovl, tuple) else (ovl, None)
        try:
            prg = prg or find_prg(opts.image, name)
        except ElfError:
            prg = None              # the run's load names the missing file
        out.update(overlay=name, overlay_prg=file_identity(prg))
    from harness.volume import identity
    out.update(identity(opts))
    if os.environ.get("EEMU_ENGINE") == "lockstep":
        out["lockstep"] = True
    if opts.corpus_image:
        out["corpus_image"] = file_identity(opts.corpus_image)
    return out


def truncation_as_bad_member(opts):
    """A DATA.BIN shorter than the executable's index tables say: an input error naming the members
    gone (--allow-bad-members: listed with the bad members, and the run checks what is there)."""
    from corpus.truncation import past_the_end
    data = opts.data_path()
    t = past_the_end(data, opts.image, opts.sidecar_symbols()) if data else None
    if t is None:
        return []
    if not opts.allow_bad_members:
        raise HarnessError(f"{t.text(data)} (ALLOW_BAD_MEMBERS=1, --allow-bad-members: check what is there)")
    print(printable(f"warning: {t.text(data)}"), file=sys.stderr)
    return [{"member": name, "offset": t.size, "kind": "truncated", "error": "past the end of the archive "
             "(the executable's index tables list it)"} for name in ([t.cut] if t.cut else []) + t.gone]


def hold_run_dir(rd, params, opts):
    """One bulk at a time writes a run directory: a second one on the same --out/--resume is
    refused. DECISION: an identical incomplete run that another bulk is writing is not resumed
    automatically; this bulk starts a run directory of its own."""
    from harness.runners.bulk.run import RunDirBusy
    try:
        rd.hold()
    except RunDirBusy as exc:
        if opts.out or opts.resume:
            raise HarnessError(str(exc)) from None
        rd = RunDir.create(params, opts.runs)
        rd.hold()
    return rd


class OtherParameters(HarnessError):
    """A run directory started with other parameters (or code) than this bulk's: never mixed."""


def same_run_or_refuse(rd, params, opts):
    """A run directory is resumed only with the parameters it was started with (`--force`: anyway).

    DECISION: with --chunks the explicit ids are the selection, so n is not compared; without it
    the sample follows from (n, seed, data), so the chunk list is compared too."""
    old = rd.params()
    ignore = ("n",) if opts.chunk_ids else ()
    diff = param_differences(old, params, ignore)
    if diff and not opts.force:
        raise OtherParameters(f"{rd.path} was run with other parameters; refusing to mix results "
                           f"({'; '.join(diff)}). Repeat its parameters, or pass --force")
    if diff:
        print(f"warning: --force: resuming {rd.path} despite: {'; '.join(diff)}", file=sys.stderr)


def run_options(params, opts):
    """The options of this run as (option, value) pairs (harness.commands.bulk_pairs)."""
    from harness.commands import bulk_pairs
    from harness.runners.bulk.failfast import DEFAULT_K
    return bulk_pairs(params, opts, DEFAULT_IMAGE, DEFAULT_DATA, DEFAULT_K)


def resume_command(rd, opts):
    """The command that resumes this run with its own parameters: the make form when the run was
    started through make (and make can say it), else the module form (harness.commands)."""
    from harness.arguments import via_make
    from harness.commands import resume_command as command
    return command(rd.path, run_options(rd.params(), opts), via_make())


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI timeout, `kill`): handled like Ctrl-C."""


def _on_sigterm(_signum, _frame):
    raise Terminated()


def synthetic_ids(checks=None):
    """The cases built by code that join a selection of the archive's chunks: the synthetic Modify
    pseudo-chunks (under morph) and the edge chunks beyond the disc whose checks are selected."""
    return (morph_pseudo.ids() if not checks or "morph" in checks else []) + edge_chunks.ids(checks)


def run_bulk(opts: Options, argv=()):
    early = start_early(opts)        # a local cluster starts while the run is prepared
    try:
        rd = prepare(opts, argv)
    except BaseException:
        early.cancel()
        raise
    ids = rd.params()["chunks"]
    done = rd.done_indices()
    for name, why in rd.strays():
        print(printable(f"warning: {rd.path}/chunks/{name}: {why}; ignored"), file=sys.stderr)
    todo = [(i, cid, rd.path, opts.checks) for i, cid in zip(shard.indices_of(rd.params()), ids) if i not in done]
    costs = {}
    todo = schedule.order(todo, lambda cid: opts.open_corpus().chunk(cid).data,
                          schedule.last_timings(os.path.dirname(rd.path), rd.path), costs)
    out = sys.stderr
    print(printable_lines(run_header(rd, opts, ids, done, todo)), file=out)
    t0 = time.time() - previous_seconds(rd)
    progress = Progress(len(ids), len(done), out, chunks=dict(zip(shard.indices_of(rd.params()), ids)),
                        costs=costs, done_ids=done)
    ff = FailFast(getattr(opts, "fail_fast", DEFAULT_K))
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if threading.current_thread() is threading.main_thread() else None
    try:
        if not run_tasks(workers_for(opts, rd, todo), rd, todo, progress, out, ff):
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
    render_report(rd.path, headline=True)
    if ff.stop:
        print(ff.stop, file=sys.stdout)
        return EXIT[summary["status"]] or EXIT["errors"]       # a fail-fast stop is never a pass
    return EXIT[summary["status"]]


def previous_seconds(rd):
    """Wall time already spent on a resumed run (from its interim summary), else 0."""
    from harness.runners.bulk.run import read_summary
    return float(read_summary(os.path.join(rd.path, "summary.json"), {}).get("seconds") or 0.0)


def render_report(run_path, headline=False):
    """Render HTML + JUnit from one read of the run directory (reports.load_run); print the
    mismatches' origin by instruction first (headline), then where the report is."""
    try:
        run = reports.load_run(run_path)
        origin = origin_headline(run.chunks) if headline else None
        if origin:
            print(printable(f"  by instruction: {origin}"), file=sys.stdout)
        out = reports.render_run(run)
    except Exception as exc:  # a reports failure must not hide the run's own result
        print(f"reports.render({run_path}) failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    path = str(out) if out else os.path.join(run_path, "report.html")
    print(f"report: {path}")
    return path


# -- the run's workers: tasks.py runs any of them; only here is a cluster chosen --------------------

def workers_for(opts, rd, todo):
    """The run's Workers: a Dask cluster (CLUSTER), the serial loop (one job, or one chunk to
    check), else the process pool."""
    if opts.cluster:
        from harness.runners.bulk.cluster import ClusterWorkers
        return ClusterWorkers(opts, rd)
    setup = Setup(opts, rd.path, counting=codecov.enabled())
    if opts.jobs <= 1 or len(todo) <= 1:
        return Inline(setup)
    return Pool(setup, opts.jobs)


def start_early(opts):
    """CLUSTER=local:N's cluster starting while the run is prepared (harness/runners/bulk/cluster.py);
    the returned object's cancel() closes it if the run never takes it over."""
    if opts.cluster:
        from harness.runners.bulk.cluster import start_early as start
        return start(opts) or _Nothing()
    return _Nothing()


class _Nothing:
    def cancel(self):
        pass
