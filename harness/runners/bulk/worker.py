"""A bulk worker: what one worker process keeps between its tasks, and the batch of chunks a task checks.

A worker is set up once (`set_up`, from a `Setup`): its options, its corpus, the loaded
executable (a `Game`, built at the first chunk and kept; a fresh one after an emulation error)
and its shrink budget. A task is a `Batch` of chunks; `check_batch` checks them in order and
returns a `BatchResult`: each chunk's status, the records themselves when the worker may not
write the run directory (a cluster worker), and the game's code coverage the batch counted. The
process pool, the serial loop and a Dask cluster run the same function (harness/runners/bulk/tasks.py).
"""
from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import List, Optional

from harness import HarnessError, provenance
from harness.profiles import run_profile
from harness.runners.bulk import codecov, cpu_profile
from harness.runners.cases import edge_chunks, morph_pseudo
from harness.runners.cases.chunk import check_chunk, setup_failed
from harness.runners.bulk.run import RunDir

_SETUP = {}                 # {"setup": the Setup this process was set up with, "gc": the pid that tuned its collector}
_LOCAL = threading.local()  # .w: this thread's state (setup, opts, corpus, game, shrunk chunks)


@dataclass
class Setup:
    """What every worker of a run is set up with, once.

    image: the executable's bytes when workers may not read opts.image (a cluster's machines);
    writes: the worker writes its records into run_path itself (one file system), else it returns
    them; engine: the client's EEMU_ENGINE; code: the run's code version (a worker of other
    sources refuses its tasks); counting: count the game's code coverage (the client's
    EEDIFF_CODE_COVERAGE decides, not the worker's environment)."""
    opts: object
    run_path: str
    writes: bool = True
    image: Optional[bytes] = field(default=None, repr=False)
    sha: str = ""
    engine: Optional[str] = None
    code: Optional[str] = None
    counting: bool = True
    token: str = field(default_factory=lambda: uuid.uuid4().hex)    # one run's set-up, across copies


@dataclass
class Batch:
    """One task: chunks (index, chunk id, only, shipped) checked in this order by one worker.
    shipped is the chunk as the task carries it (harness/runners/bulk/cluster.py), or None: the worker
    reads it from its own corpus."""
    chunks: List[tuple]

    @property
    def first(self):
        return self.chunks[0][0]


@dataclass
class BatchResult:
    statuses: List[tuple]                    # record_status of each chunk, in the batch's order
    records: Optional[List[dict]] = None     # the records, when the worker does not write them
    coverage: object = None                  # a CodeCoverage of the batch's chunks, or None


PR_SET_PDEATHSIG = 1


def die_with_parent(parent):
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


def init_pool_worker(setup: Setup, parent=None):
    """A process-pool worker: the parent handles Ctrl-C and SIGTERM for the whole run and stops the
    workers itself; the worker dies with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if parent is not None:
        die_with_parent(parent)
    set_up(setup)


def set_up(setup: Setup):
    """Set this process up for `setup`'s run (a pool worker's initializer, a cluster worker's plugin,
    the serial run); each thread that checks chunks builds its own state from it at its first task."""
    _SETUP["setup"] = setup
    settle_collector()


# DECISION: a worker makes many short-lived containers per chunk (queries, answers, records) and
# keeps few: young collections every 10,000 allocations rather than 700, and everything alive
# after start-up (modules, the option table, the setup) frozen out of the older generations'
# scans. Measured on 60 chunks (seed 4, nightly, jobs 1): the collector's CPU 0.7-0.9 -> 0.4 s
# for playback, 0.7 -> 0.2 s for controllers. Nothing is left uncollected: cycles still go.
GC_THRESHOLDS = (10_000, 20, 100)


def settle_collector():
    """Tune the cycle collector for a worker, once per process (set_up may run again)."""
    if _SETUP.get("gc") != os.getpid():
        _SETUP["gc"] = os.getpid()
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)


def _state():
    """This thread's worker state for the process's set-up: kept across tasks, made afresh for
    another run. DECISION: per thread, as a cluster worker may run several tasks at once and a
    loaded machine (Game) is not shared by threads."""
    setup = _SETUP.get("setup")
    if setup is None:
        raise HarnessError("a bulk task reached a worker that was not set up for its run")
    w = getattr(_LOCAL, "w", None)
    if w is None or w["setup"].token != setup.token:
        w = _LOCAL.w = {"setup": setup, "opts": setup.opts, "game": None}
        if setup.engine:
            os.environ["EEMU_ENGINE"] = setup.engine
        if setup.code is not None and worker_code_version() != setup.code:
            # DECISION: a worker with other harness/reference/corpus sources would write records of
            # another code version into this run: it refuses its tasks instead.
            w["refused"] = (f"this worker's eediff code is version {worker_code_version()}, the run's "
                            f"is {setup.code}: install the same eediff on every worker")
    return w


_CODE = {}


def worker_code_version():
    if "v" not in _CODE:
        from harness.runners.bulk.run import code_version
        _CODE["v"] = code_version()
    return _CODE["v"]


def _executable_file(data, sha):
    """The shipped executable as a file of the worker's own temp directory (written once)."""
    import tempfile
    path = os.path.join(tempfile.gettempdir(), f"eediff-exe-{sha[:20]}.elf")
    if not os.path.isfile(path) or os.path.getsize(path) != len(data):
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def game():
    """This worker's loaded executable, built at its first use and kept."""
    w = _state()
    if w.get("game") is None:
        from harness.driver.game import Game
        s = w["setup"]
        image = _executable_file(s.image, s.sha) if s.image is not None else s.opts.image
        w["game"] = Game(image, s.opts.float_model, coverage=bool(s.counting), **s.opts.machine_args())
    return w["game"]


def _chunk_of(w, shipped):
    def chunk_of(cid):
        if shipped is None:
            if "corpus" not in w:
                w["corpus"] = w["opts"].open_corpus()
            return w["corpus"].chunk(cid)
        if isinstance(shipped, Exception):
            raise shipped
        return shipped
    return chunk_of


def check_batch(batch: Batch, setup: Optional[Setup] = None) -> BatchResult:
    """Check the batch's chunks in order; write each record (setup.writes) or return them.
    setup: the run's, when this process may not have been set up for it yet (None: it was)."""
    if setup is not None:
        set_up(setup)
    cpu_profile.worker_started(sys.modules[__name__])
    w = _state()
    setup = w["setup"]
    if w.get("refused"):
        raise HarnessError(w["refused"])
    statuses, records = [], []
    rd = RunDir(setup.run_path) if setup.writes else None
    cov = codecov.Total() if setup.counting else None
    for index, cid, only, shipped in batch.chunks:
        res = check_record(w["opts"], index, cid, only, _chunk_of(w, shipped), game)
        if res.get("error") and not morph_pseudo.is_pseudo(cid):
            _take_coverage(w, cov)
            w["game"] = None              # a fresh machine after an emulation error
        if rd is not None:
            rd.write_chunk(res)
        else:
            records.append(res)
        statuses.append(record_status(res))
    _take_coverage(w, cov)
    cpu_profile.dump()
    return BatchResult(statuses, None if setup.writes else records, cov.cov if cov is not None else None)


def _take_coverage(w, total):
    if total is not None and w.get("game") is not None:
        total.add(codecov.take(w["game"]))


def record_status(res):
    """(index, mismatches, error?, seconds, error): what the parent counts of a chunk record."""
    return (res["index"], len(res["mismatches"]) + res.get("dropped_mismatches", 0), bool(res.get("error")),
            res["seconds"], res.get("error"))


def check_record(opts, index, cid, only, chunk_of, game_of):
    """The record of chunk `cid` (interfaces.md §4): `chunk_of(cid)` gives the chunk and
    `game_of()` the loaded executable, so a process pool and a cluster worker check alike."""
    ctx = opts.context(cid)
    w = _thread_state(opts)
    plots = w.get("plotted_chunks", 0) < PLOTTED_CHUNKS
    if opts.model:                    # a model in place of the built-in reference (no plots, no provenance)
        from harness.runners.cases.model_chunk import ModelSlot, model_record
        slot = w.get("model")
        if slot is None or (slot.command, slot.timeout) != (opts.model, opts.model_timeout):
            slot = w["model"] = ModelSlot(opts.model, opts.model_timeout)
        return model_record(opts, slot, index, cid, only, chunk_of, game_of, wants_shrink(opts))
    if edge_chunks.is_edge(cid):      # the edge chunks beyond the disc (corpus/synth/edge.py)
        return _plotted(w, edge_chunks.check_edge(game_of(), cid, ctx, run_profile(opts), index, only, plots))
    if morph_pseudo.is_pseudo(cid):   # the synthetic Modify blends (checks.md §5.2)
        return morph_pseudo.check_pseudo(game_of(), cid, ctx, index)
    try:
        ch = chunk_of(cid)
        game = game_of()
    except Exception as exc:          # a broken image or an unreadable chunk: this chunk's error
        return setup_failed(cid, index, exc)
    res = _plotted(w, check_chunk(game, ch, ctx, run_profile(opts), only=only, index=index, plots=plots))
    if res["mismatches"] and not res.get("error") and wants_shrink(opts):
        attach_shrunk(game, ch, ctx, res)
        # DECISION: provenance is traced on the first PROVENANCE_CHUNKS failing chunks per worker
        # thread (--shrink: every one), provenance.PER_CHUNK each
        w["traced_chunks"] = w.get("traced_chunks", 0) + 1
        if opts.shrink or w["traced_chunks"] <= PROVENANCE_CHUNKS:
            provenance.attach(game, ch, ctx, res)
    return res


PROVENANCE_CHUNKS = 10   # failing chunks traced per worker thread, unless --shrink
# DECISION: the reference channels the report plots (the record's draw.series) are drawn for the
# first PLOTTED_CHUNKS chunks with plottable mismatches per worker thread: the report shows full
# details (and plots) for its first reports.MAX_FULL_DETAILS mismatches alone, so a mutant that
# breaks every chunk costs no more than a few dozen chunks' plots. Object names cost nothing and
# are recorded for every failing chunk.
PLOTTED_CHUNKS = 20


def _plotted(w, res):
    """Count a record that carries plots against its thread's PLOTTED_CHUNKS."""
    if (res.get("draw") or {}).get("series"):
        w["plotted_chunks"] = w.get("plotted_chunks", 0) + 1
    return res


def _thread_state(opts):
    """This thread's worker state; a check outside a bulk worker (a test, a tool) has one of its
    own, so its budgets hold as well."""
    w = getattr(_LOCAL, "w", None)
    if w is None:
        w = _LOCAL.w = {"setup": Setup(opts, "")}
    return w


def wants_shrink(opts):
    """DECISION: every failing chunk gets its shrunk repros by default (the first mismatch of each
    check, at most shrinking.SHRINK_REPLAYS replays each), so the closing summary and the report
    show one for each failing chunk, whichever worker checked it; --no-shrink shrinks none."""
    return True if opts.shrink is None else opts.shrink


def attach_shrunk(game, ch, ctx, res):
    """Shrink the first mismatch of each check of a failing chunk: bulk and `one` alike, so both
    give the same shrunk repro for the same chunk."""
    from harness.shrinking import shrink_first_of_each_check
    shrink_first_of_each_check(game, ch, ctx, res)
