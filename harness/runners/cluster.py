"""`make bulk CLUSTER=...`: the chunk tasks on a Dask distributed scheduler instead of the process pool.

Workers need only the installed package: the executable's bytes are scattered to every worker once,
each task carries its chunk's bytes (and, for a chunk with morphs, its CCSF member's bytes), so no
filesystem is shared. Each record comes back to the client, which writes chunks/<index>.json itself:
resume, the kill guarantees (a killed client loses only the chunks in flight) and the summary are
those of the process pool. A worker that dies costs nothing but a retry: the scheduler gives its
tasks to another worker, and the record is still written once, by the client. A record brings
the game's code coverage its check counted on the worker (under codecov.CARRY, removed before
the record is written); the client sums them into its coverage/<host>-<pid>.json.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import zlib

from harness import HarnessError

LOCAL = "local:"
IN_FLIGHT_PER_THREAD = 3     # tasks queued per worker thread: chunk bytes in memory stay bounded


def _distributed():
    try:
        import distributed
    except ImportError:      # optional: dask distributed is the [cluster] extra, needed only for CLUSTER=
        raise HarnessError("CLUSTER needs dask distributed: pip install -e '.[cluster]' "
                           "(make bulk CLUSTER=... installs it)") from None
    return distributed


def connect(address):
    """(client, closer) for 'tcp://host:port' (an existing scheduler) or 'local:N' (a LocalCluster)."""
    distributed = _distributed()
    if address.startswith(LOCAL):
        try:
            n = int(address[len(LOCAL):])
        except ValueError:
            n = 0
        if n < 1:
            raise HarnessError(f"CLUSTER={address}: expected local:N with N >= 1 workers, e.g. local:4")
        # DECISION: one thread per worker process; a loaded machine (Game) is not shared by threads.
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        return client, lambda: (client.close(), cluster.close())
    try:
        client = distributed.Client(address, timeout="30s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise HarnessError(f"CLUSTER={address}: cannot reach the Dask scheduler: {exc}") from None
    return client, client.close


class ShippedChunk:
    """A corpus chunk as a task carries it: id, bytes, names and ext (interfaces.md §2), and the
    member's CCSF bytes (zlib) when a check reads the file (the morph check's models)."""

    def __init__(self, ch, with_file):
        self.id, self.member, self.name = ch.id, getattr(ch, "member", None), getattr(ch, "name", None)
        self.data = bytes(ch.data)
        self.names, self.ext = dict(ch.names), dict(ch.ext)
        self._member_z = zlib.compress(bytes(ch.file.data), 1) if with_file else None
        self._file = None

    @property
    def file(self):
        if self._file is None:
            if self._member_z is None:
                raise HarnessError(f"{self.id}: the member's CCSF bytes were not sent with the task")
            from corpus.ccsf import CcsfFile
            self._file = CcsfFile(zlib.decompress(self._member_z), member=self.member)
        return self._file

    def resolve(self, obj):
        return self.file.resolve(obj)

    def __getstate__(self):
        return dict(self.__dict__, _file=None)


def ship(corpus, cid, only):
    """The task's chunk: None for a chunk built by code (the Modify blends and the edge chunks,
    built on the worker), the exception for a chunk the client cannot read (the worker records it
    as the chunk's error)."""
    from corpus.synth.edge import is_synthetic
    if is_synthetic(cid):             # the Modify blends and the edge chunks, built on the worker
        return None
    try:
        ch = corpus.chunk(cid)
        try:
            morphs = bool(ch.anime.morphs)
        except Exception:              # the reference refuses the chunk: no check reads the file
            morphs = False
        return ShippedChunk(ch, morphs and (not only or "morph" in only))
    except Exception as exc:
        return exc


_LOCAL = threading.local()     # per worker thread: {(sha256, float model, counting): Game}


def _executable_file(data, sha):
    """The scattered executable as a file of the worker's own temp directory (written once)."""
    path = os.path.join(tempfile.gettempdir(), f"eediff-exe-{sha[:20]}.elf")
    if not os.path.isfile(path) or os.path.getsize(path) != len(data):
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


_CODE = {}


def worker_code_version():
    if "v" not in _CODE:
        from harness.runners.run import code_version
        _CODE["v"] = code_version()
    return _CODE["v"]


def check_on_worker(opts, index, cid, only, shipped, exe, sha, engine=None, code=None, coverage=False):
    """The Dask task: one chunk's record, checked as a process-pool worker checks it; coverage:
    count the game's code coverage and bring it back under codecov.CARRY."""
    from harness.runners import codecov
    from harness.runners.bulk import check_record
    if code is not None and worker_code_version() != code:
        # DECISION: a worker with other harness/reference/corpus sources would write records of
        # another code version into this run: it refuses the task instead.
        raise HarnessError(f"this worker's eediff code is version {worker_code_version()}, the run's is "
                           f"{code}: install the same eediff on every worker")
    if engine:
        os.environ["EEMU_ENGINE"] = engine
    games = _LOCAL.__dict__.setdefault("games", {})
    # DECISION: the client's EEDIFF_CODE_COVERAGE decides, not the worker's environment; a
    # machine counts or not for its life, so whether it counts is part of its key.
    key = (sha, opts.float_model, bool(coverage))

    def game_of():
        if key not in games:
            from harness.driver.game import Game
            games[key] = Game(_executable_file(exe, sha), opts.float_model, coverage=bool(coverage))
        return games[key]

    def chunk_of(_cid):
        if isinstance(shipped, Exception):
            raise shipped
        return shipped
    res = check_record(opts, index, cid, only, chunk_of, game_of)
    if coverage and key in games:
        cov = codecov.take(games[key])
        if cov is not None:
            res[codecov.CARRY] = cov.to_json()
    if res.get("error"):
        games.pop(key, None)          # a fresh machine after an emulation error
    return res


def run_cluster(opts, rd, todo, progress, out, ff=None):
    """Check `todo` on the cluster; the client writes each record. False when workers keep dying
    (the scheduler gave up on a task), as the process pool's run_pool."""
    from harness.runners import codecov
    distributed = _distributed()
    client, close = connect(opts.cluster)
    futures = []
    coverage = codecov.Total()
    try:
        with open(opts.image, "rb") as f:
            exe_bytes = f.read()
        sha = hashlib.sha256(exe_bytes).hexdigest()
        exe = client.scatter(exe_bytes, broadcast=True, hash=False)
        corpus = opts.open_corpus()
        threads = sum(client.nthreads().values()) or 1
        print(f"  cluster {opts.cluster}: {len(client.nthreads())} workers, {threads} threads "
              f"(dashboard {client.dashboard_link or 'off'})", file=out)
        engine = os.environ.get("EEMU_ENGINE")
        counting = codecov.enabled()
        run_key, code = rd.params().get("key"), rd.params().get("code")
        queue = iter(todo)
        index_of = {}

        def submit_next():
            task = next(queue, None)
            if task is None:
                return None
            index, cid, _, only = task
            fut = client.submit(check_on_worker, opts, index, cid, only, ship(corpus, cid, only), exe, sha,
                                engine, code, counting, key=f"eediff-{run_key}-chunk-{index}", pure=False)
            futures.append(fut)
            index_of[fut.key] = (index, cid)
            return fut
        first = [f for f in (submit_next() for _ in range(max(4, IN_FLIGHT_PER_THREAD * threads))) if f]
        done = distributed.as_completed(first)
        for fut in done:
            try:
                res = fut.result()
            except distributed.KilledWorker as exc:
                print(f"\nworkers keep dying on a chunk ({exc}); the chunks already written are kept",
                      file=out)
                return False
            except Exception as exc:   # the task itself failed on the worker (not the chunk's check)
                i, cid = index_of.get(fut.key, ("?", "?"))
                raise HarnessError(f"CLUSTER={opts.cluster}: the task of chunk {i} ({cid}) failed on its "
                                   f"worker: {type(exc).__name__}: {exc}") from None
            carried = res.pop(codecov.CARRY, None)
            if carried is not None:
                coverage.add(codecov.parse(carried, f"the coverage chunk {res.get('index')} brought back"))
                coverage.write(rd.path)
            rd.write_chunk(res)
            r = _status(res)
            progress.update(*r[:4])
            if ff is not None and ff.observe(r[4], r[0]):
                return True
            nxt = submit_next()
            if nxt is not None:
                done.add(nxt)
        return True
    finally:
        try:
            client.cancel(futures)
        except Exception:
            pass
        close()


def _status(res):
    from harness.runners.bulk import record_status
    return record_status(res)
