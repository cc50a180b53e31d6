"""The two Dask classes a cluster run subclasses (imported with CLUSTER= only, as distributed is optional).

`RunSetUp`, a worker plugin, sets each worker up for the run once (harness/runners/bulk/worker.py's
`Setup`), and so each worker that starts later (the nanny's replacement of a dead one); its tasks
then carry only their chunks. `NamedExecutor` is `Client.get_executor()`'s executor with each
task named by the run and its first chunk (eediff-<run key>-chunk-<index>), as the scheduler and
its dashboard show it.
"""
from __future__ import annotations

import distributed
from distributed.cfexecutor import ClientExecutor


class RunSetUp(distributed.WorkerPlugin):
    idempotent = False

    def __init__(self, setup):
        self.run = setup
        self.name = f"eediff-{setup.token}"

    def setup(self, worker):  # noqa: ARG002  (distributed.WorkerPlugin.setup: called as setup(worker=...))
        from harness.runners.bulk.worker import set_up
        set_up(self.run)


class NamedExecutor(ClientExecutor):
    def __init__(self, client, run_key):
        super().__init__(client, pure=False)
        self.run_key = run_key

    def submit(self, fn, batch, *args):
        return super().submit(fn, batch, *args, key=f"eediff-{self.run_key}-chunk-{batch.first}")
