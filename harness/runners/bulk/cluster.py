"""`make bulk CLUSTER=...`: the run's tasks on a Dask distributed scheduler instead of the process pool.

The task loop is the pool's (harness/runners/bulk/tasks.py) over `Client.get_executor()`. Workers need
only the installed package: a plugin gives each worker the run's set-up once (options, the
executable's bytes, the code version), and each worker keeps its loaded machine between tasks;
a task is a batch of chunks carrying their bytes (and, for a chunk with F_Morpher records, its
CCSF member's bytes), so no file system is shared. The records come back to the client, which
writes chunks/<index>.json itself: resume, the kill guarantees (a killed client loses only the
chunks in flight) and the summary are those of the process pool. A worker that dies costs nothing
but a retry: the scheduler gives its tasks to another worker, and each record is still written
once, by the client. A batch brings back the game's code coverage it counted, beside its records
(never in them); the client sums them into its coverage/<host>-<pid>.json.
"""
from __future__ import annotations

import hashlib
import os
import zlib

from corpus.errors import CorpusError
from harness import HarnessError
from harness.runners.bulk.tasks import LostWorkers, Workers

LOCAL = "local:"
# DECISION: a LocalCluster has at most 4 worker processes per core: more only share the cores
# (and each holds a loaded machine); an absurd count is refused before a process is started.
MAX_LOCAL_WORKERS_PER_CORE = 4


def _distributed():
    try:
        import distributed
    except ImportError:      # optional: dask distributed is the [cluster] extra, needed only for CLUSTER=
        raise HarnessError("CLUSTER needs dask distributed: pip install -e '.[cluster]' "
                           "(make bulk CLUSTER=... installs it)") from None
    return distributed


def local_workers(address):
    """N of a 'local:N' address (None for a scheduler's address); a HarnessError when N is not a
    whole number from 1 to MAX_LOCAL_WORKERS_PER_CORE x this machine's cores. Checked before
    anything is started (harness/__main__.py checks it at the door)."""
    if not address.startswith(LOCAL):
        return None
    text = address[len(LOCAL):]
    limit = MAX_LOCAL_WORKERS_PER_CORE * (os.cpu_count() or 1)
    n = int(text) if text.isdigit() and len(text) <= 9 else 0
    if not 1 <= n <= limit:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise HarnessError(f"CLUSTER=local:{shown}: expected local:N with N from 1 to {limit} workers "
                           f"({MAX_LOCAL_WORKERS_PER_CORE} per core of this machine), e.g. local:4")
    return n


def connect(address):
    """(client, cluster) for 'tcp://host:port' (an existing scheduler; cluster None) or 'local:N'
    (a LocalCluster of N one-thread worker processes)."""
    n = local_workers(address)
    distributed = _distributed()
    if n is not None:
        wait_closed()
        import dask
        # DECISION: one thread per worker process; a loaded machine (Game) is not shared by threads.
        with dask.config.set(_dask_config()):
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               dashboard_address=None,
                                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            return distributed.Client(cluster), cluster
    try:
        client = distributed.Client(address, timeout="30s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise HarnessError(f"CLUSTER={address}: cannot reach the Dask scheduler: {exc}") from None
    return client, None


class EarlyStart:
    """A LocalCluster started in a thread while the run is prepared (its processes start and import
    while this one opens the corpus and loads the executable); ClusterWorkers takes it over."""

    def __init__(self, address):
        import threading
        self.address, self.got, self.error = address, None, None
        self.thread = threading.Thread(target=self._start, name="eediff-local-cluster", daemon=True)
        self.thread.start()

    def _start(self):
        try:
            self.got = connect(self.address)
        except BaseException as exc:      # raised where the run takes the cluster over
            self.error = exc

    def take(self):
        self.thread.join()
        _EARLY.pop(self.address, None)
        if self.error is not None:
            raise self.error
        return self.got

    def cancel(self):
        """Close the cluster when the run ends before it takes it over (a refused input)."""
        if _EARLY.get(self.address) is not self:
            return
        self.thread.join()
        _EARLY.pop(self.address, None)
        if self.got is not None:
            client, cluster = self.got
            client.close()
            close_local(cluster)


_EARLY = {}


def start_early(opts):
    """Start CLUSTER=local:N's LocalCluster now, in a thread (an EarlyStart), or None for a
    scheduler's address."""
    if local_workers(opts.cluster) is None:
        return None
    _EARLY[opts.cluster] = early = EarlyStart(opts.cluster)
    return early


class ShippedChunk:
    """A corpus chunk as a task carries it: id, bytes, names and ext (interfaces.md §2), the
    member's scene when the objects or world check reads it, and the member's CCSF bytes (zlib)
    when a check reads the file (the morph check's models; the scene when the index keeps none)."""

    def __init__(self, ch, with_file, with_scene=False):
        self.id, self.member, self.name = ch.id, getattr(ch, "member", None), getattr(ch, "name", None)
        self.data = bytes(ch.data)
        self.names, self.ext = dict(ch.names), dict(ch.ext)
        self._scene = None
        if with_scene:
            try:
                self._scene = ch.scene
            except CorpusError:         # read on the worker, where the check records the error
                with_file = True
        self._member_z = zlib.compress(bytes(ch.file.data), 1) if with_file else None
        self._file = None

    @property
    def scene(self):
        if self._scene is None:
            from corpus.objects import scene
            self._scene = scene(self.file)
        return self._scene

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


# DECISION: the objects and world checks build the anm's scene from the member's setup section
# (anim-objects.md §3.6), and apply to nearly every chunk: the member's scene (from the corpus
# index) travels with every chunk of a run that selects them; the member's bytes only when the
# index keeps no scene for it.
FILE_CHECKS = {"objects", "world"}


def ship(corpus, cid, only):
    """The task's chunk: None for a chunk built by code (the Modify blends and the edge chunks,
    built on the worker), the exception for a chunk the client cannot read (the worker records it
    as the chunk's error).

    DECISION: the member's CCSF bytes travel with a chunk whose data pass the quick test for
    F_Morpher records (formats.md §4.1, computed once per corpus for the selection), not after a
    parse of the chunk on the client (the client's own time per chunk; the worker parses it)."""
    from corpus.synth.edge import is_synthetic
    from harness.runners.bulk import selection
    if is_synthetic(cid):             # the Modify blends and the edge chunks, built on the worker
        return None
    try:
        ch = corpus.chunk(cid)
        morphs = "morph" in selection.kinds_by_chunk(corpus).get(cid, ())
        scene = not only or bool(set(only) & FILE_CHECKS)
        return ShippedChunk(ch, morphs and (not only or "morph" in only), scene)
    except Exception as exc:
        return exc


def _dask_config():
    """DECISION: a LocalCluster's own processes run with Dask's diagnostics slowed or off (the
    workers' statistical profiler sampling every 10 ms, the system and memory monitors every
    100-500 ms, the event-loop health tick every 20 ms): on a machine whose cores the workers
    fill, they cost a tenth of a core while idle and slowed each chunk. An existing scheduler's
    workers keep their own configuration."""
    return {"distributed.worker.profile.enabled": False,
            "distributed.admin.system-monitor.gil.enabled": False,
            "distributed.admin.system-monitor.interval": "2s",
            "distributed.admin.system-monitor.disk": False,
            "distributed.worker.memory.monitor-interval": "1s",
            "distributed.admin.tick.interval": "500ms"}




class ClusterWorkers(Workers):
    """The run's tasks on a Dask scheduler: `distributed.Client.get_executor()`. The workers are set
    up by a plugin (harness/runners/bulk/dask_executor.py), each task carries its chunks (ship), and
    the records come back to this process, which writes them."""

    def __init__(self, opts, rd):
        from harness.runners.bulk import codecov
        from harness.runners.bulk.worker import Setup
        from eemu_ext.loading.sidecar import beside
        args = opts.machine_args()
        if args["syms"] or args["overlay"] or beside(opts.image):
            # DECISION: the workers receive the executable's bytes alone, so an image that needs its
            # sidecar or an overlay runs on the local pool (no CLUSTER=), never half-symbolled remotely.
            raise HarnessError(f"CLUSTER={opts.cluster}: {opts.image} needs its symbol sidecar or an overlay, "
                               f"which the cluster's workers do not receive; run it without CLUSTER=")
        self.address = opts.cluster
        early = _EARLY.get(opts.cluster)
        wait_closed()
        self.client, self.cluster = early.take() if early is not None else connect(opts.cluster)
        self.run_key = rd.params().get("key")
        with open(opts.image, "rb") as f:
            image = f.read()
        self.setup = Setup(opts, rd.path, writes=False, image=image, sha=hashlib.sha256(image).hexdigest(),
                           engine=os.environ.get("EEMU_ENGINE"), code=rd.params().get("code"),
                           counting=codecov.enabled())
        from harness.runners.bulk.dask_executor import RunSetUp
        self.client.register_plugin(RunSetUp(self.setup))
        self.slots = sum(self.client.nthreads().values()) or 1
        self.corpus = opts.open_corpus()

    def describe(self):
        return (f"cluster {self.address}: {len(self.client.nthreads())} workers, {self.slots} threads"
                + ("" if self.cluster is not None else f" (dashboard {self.client.dashboard_link})"))

    def executor(self):
        from harness.runners.bulk.dask_executor import NamedExecutor
        return NamedExecutor(self.client, self.run_key)

    def carry(self, task):
        index, cid, _, only = task
        return (index, cid, only, ship(self.corpus, cid, only))

    def lost(self, exc):
        distributed = _distributed()
        if isinstance(exc, distributed.KilledWorker):
            return f"workers keep dying on a chunk ({exc})"
        if isinstance(exc, LostWorkers):
            return str(exc)
        return None

    def cancelled(self):
        return (f"the Dask scheduler at {self.address} went away (its tasks were cancelled)")

    def failed(self, batch, exc):
        i, cid = batch.chunks[0][:2]
        more = f" and {len(batch.chunks) - 1} more" if len(batch.chunks) > 1 else ""
        raise HarnessError(f"CLUSTER={self.address}: the task of chunk {i} ({cid}){more} failed on its "
                           f"worker: {type(exc).__name__}: {exc}") from None

    def finish(self, ex):
        ex.shutdown(wait=False)

    def stop(self, ex):
        ex.shutdown(wait=False)           # cancels every task not finished

    def close(self):
        """A quiet end: the client first, then the workers (each closes before the scheduler does, so
        no heartbeat meets a closed scheduler), then the scheduler. DECISION: a LocalCluster closes
        in a thread while the summary and the report are written (its workers take a second or two
        to stop); the process waits for it before it exits (a non-daemon thread), and a new
        cluster waits for it before it starts."""
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                import threading
                t = threading.Thread(target=close_local, args=(self.cluster,), name="eediff-cluster-close")
                t.start()
                _CLOSING.append(t)


_CLOSING = []          # the threads closing this process's earlier LocalClusters
# DECISION: a LocalCluster's workers get this long to stop before the scheduler closes (Dask's own
# close gives them 4 s, which a loaded machine overruns: a worker then heartbeats to a closed
# scheduler and prints a traceback).
WORKER_CLOSE_SECONDS = 60


def close_local(cluster):
    """Close a LocalCluster's workers (each with WORKER_CLOSE_SECONDS to stop), then the cluster."""
    cluster.sync(_close_workers, cluster)
    cluster.close()


async def _close_workers(cluster):
    import asyncio
    await asyncio.gather(*(w.close(timeout=WORKER_CLOSE_SECONDS) for w in list(cluster.workers.values())),
                         return_exceptions=True)


def wait_closed():
    """Wait until every LocalCluster this process started is closed."""
    while _CLOSING:
        _CLOSING.pop().join()


def check_on_worker(opts, index, cid, only, shipped, image, sha):
    """One chunk's record as a cluster worker makes it: set up with the executable's bytes, given
    the chunk as a task carries it (ship), reading no file of the client."""
    from harness.runners.bulk.worker import Batch, Setup, check_batch
    setup = Setup(opts, "", writes=False, image=image, sha=sha, counting=False)
    return check_batch(Batch([(index, cid, only, shipped)]), setup).records[0]
