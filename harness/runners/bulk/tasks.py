"""The task loop of a bulk: batches of chunks on a `concurrent.futures.Executor`, one loop for all.

The serial run (`Inline`, in this process), the process pool (`Pool`, a ProcessPoolExecutor of
forked workers that write their own records) and a Dask cluster (harness/runners/bulk/cluster.py,
`distributed.Client.get_executor()`, whose workers return their records) differ only in their
`Workers`: how an executor is made, how many tasks run at once, how a task carries its chunks, and
what a lost worker means. `run_tasks` keeps a few batches per slot in flight, writes the records
that come back, counts each chunk on the progress line, sums the coverage the batches counted
into this process's coverage file, and stops early for the fail-fast rule.

DECISION: a task is a batch of chunks, sized by guided self-scheduling: remaining chunks over
BATCHES_PER_SLOT x slots, at most MAX_BATCH, so the per-task cost (a pickle, a scheduler round
trip, a coverage take) is paid once per several chunks while the run is long, and the last
tasks are single chunks (the chunks are ordered most expensive first, harness/runners/bulk/schedule.py),
so no worker waits long on another at the end.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import sys
import time
from concurrent.futures.process import BrokenProcessPool

from harness.runners.bulk import codecov
from harness.runners.bulk.worker import Batch, Setup, check_batch, init_pool_worker, set_up

MAX_BATCH = 8
BATCHES_PER_SLOT = 4
IN_FLIGHT_PER_SLOT = 2          # batches queued per slot: a worker never waits for its next task
MAX_POOL_RESTARTS = 3

# DECISION: this process takes the coverage counts that come back with the batches into its total
# and rewrites its coverage/<host>-<pid>.json at most every COVERAGE_SECONDS and at the run's end
# (or stop). Writing after every chunk cost 4% of the nightly; a killed bulk loses the counts of
# at most its last COVERAGE_SECONDS, never a chunk record.
COVERAGE_SECONDS = 20.0


class LostWorkers(Exception):
    """The workers of a run are gone for good (they keep dying, or the scheduler went away)."""


class Workers:
    """How a run's tasks are executed. Subclasses: Inline, Pool, cluster.ClusterWorkers."""
    slots = 1
    restarts = 0

    def executor(self) -> cf.Executor:
        raise NotImplementedError

    def submit(self, ex, batch):
        return ex.submit(check_batch, batch)

    def carry(self, task):
        """The task tuple (index, cid, only, shipped) of a todo entry (index, cid, run path, only)."""
        index, cid, _, only = task
        return (index, cid, only, None)

    def lost(self, _exc):
        """A message when `exc` means the workers were lost (restart or give up), else None."""
        return None

    def cancelled(self):
        """Why a task was cancelled that the loop did not cancel (its workers are gone)."""
        return "a task was cancelled by its executor"

    def describe(self):
        """A line for the run's header, or None."""
        return None

    def failed(self, _batch, exc):
        """A task raised `exc` on its worker (not a lost worker): raise what the run should."""
        raise exc

    def finish(self, ex):
        """The executor's end after its last task."""
        ex.shutdown(wait=True)

    def stop(self, ex):
        """Stop the executor's workers at once (Ctrl-C, SIGTERM, an error): no worker outlives the run."""
        ex.shutdown(wait=False, cancel_futures=True)

    def close(self):
        pass


class InlineExecutor(cf.Executor):
    """Runs each task in this process when it is submitted (the serial run)."""

    def submit(self, fn, /, *args, **kwargs):
        f = cf.Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except Exception as exc:                  # Ctrl-C and SIGTERM are not the task's result
            f.set_exception(exc)
        return f


class Inline(Workers):
    def __init__(self, setup: Setup):
        self.setup = setup

    def executor(self):
        set_up(self.setup)
        return InlineExecutor()


class Pool(Workers):
    """opts.jobs forked worker processes that write their own records (one file system); a dead
    worker (killed, out of memory) costs only the chunks in flight: the pool is restarted on the
    chunks with no record yet, at most MAX_POOL_RESTARTS times."""
    restarts = MAX_POOL_RESTARTS

    def __init__(self, setup: Setup, jobs: int):
        self.setup, self.slots = setup, jobs

    def executor(self):
        return cf.ProcessPoolExecutor(self.slots, mp_context=mp.get_context("fork"),
                                      initializer=init_pool_worker, initargs=(self.setup, os.getpid()))

    def lost(self, exc):
        return "a worker died" if isinstance(exc, BrokenProcessPool) else None

    def stop(self, ex):
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)
        ex.shutdown(wait=False, cancel_futures=True)


def batches(tasks, slots, carry):
    """The tasks as Batches, guided self-scheduling (see the module's DECISION)."""
    i, n = 0, len(tasks)
    while i < n:
        size = max(1, min(MAX_BATCH, (n - i) // (BATCHES_PER_SLOT * max(1, slots))))
        yield Batch([carry(t) for t in tasks[i:i + size]])
        i += size


class CoverageFile:
    """This process's total of the counts the batches brought back, written every COVERAGE_SECONDS."""

    def __init__(self, run_path):
        self.run_path, self.total, self.at, self.dirty = run_path, None, time.monotonic(), False

    def add(self, cov, force=False):
        if cov is not None:
            if self.total is None:
                self.total = codecov.Total()
            self.total.add(cov)
            self.dirty = True
        if self.dirty and (force or time.monotonic() - self.at >= COVERAGE_SECONDS):
            self.total.write(self.run_path)
            self.at, self.dirty = time.monotonic(), False


def run_tasks(workers: Workers, rd, todo, progress, out=sys.stderr, ff=None):
    """Check `todo` (tuples index, chunk id, run path, only) with `workers`; True when every task
    ran (or the fail-fast rule stopped the run), False when the workers were lost for good."""
    coverage = CoverageFile(rd.path)
    pending = list(todo)
    try:
        if workers.describe():
            print(f"  {workers.describe()}", file=out)
        for attempt in range(workers.restarts + 1):
            ex = workers.executor()
            try:
                _drain(workers, ex, rd, pending, progress, coverage, ff)
                workers.finish(ex)
                return True
            except LostWorkers as exc:
                workers.stop(ex)
                if attempt == workers.restarts:
                    print(f"\n{exc}; the chunks already written are kept", file=out)
                    return False
                done = rd.done_indices()
                pending = [t for t in pending if t[0] not in done]
                progress.done = len(done)
                print(f"\n{exc}; restarting the workers on the {len(pending)} chunks not yet written",
                      file=out)
            except BaseException:
                workers.stop(ex)          # Ctrl-C, SIGTERM, a full disk: no worker outlives the run
                raise
            finally:
                rd.remove_temp_files()
        return False
    finally:
        coverage.add(None, force=True)
        workers.close()


def _drain(workers, ex, rd, pending, progress, coverage, ff):
    queue = batches(pending, workers.slots, workers.carry)
    in_flight = {}

    def top_up():
        while len(in_flight) < IN_FLIGHT_PER_SLOT * workers.slots:
            b = next(queue, None)
            if b is None:
                return
            in_flight[workers.submit(ex, b)] = b
    top_up()
    stopping = False
    while in_flight:
        done, _ = cf.wait(list(in_flight), return_when=cf.FIRST_COMPLETED)
        for fut in done:
            batch = in_flight.pop(fut)
            if fut.cancelled():
                if stopping:
                    continue
                raise LostWorkers(workers.cancelled())
            exc = fut.exception()
            if exc is not None:
                why = workers.lost(exc)
                if why:
                    raise LostWorkers(why) from None
                workers.failed(batch, exc)
            res = fut.result()
            for rec in res.records or ():
                rd.write_chunk(rec)
            coverage.add(res.coverage)
            for status in res.statuses:
                progress.update(*status[:4])
                if ff is not None and not stopping and ff.observe(status[4], status[0]):
                    # the chunks in flight finish where they can (their records are written before
                    # the summary); those not started are dropped
                    stopping = True
                    for f in in_flight:
                        f.cancel()
        if not stopping:
            top_up()

