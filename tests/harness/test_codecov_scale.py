"""Coverage of the game's code when a run is split: `make merge` sums the shards'
coverage.json into the merged run, and a Dask cluster's workers bring each record's counts back
to the client, which sums them. The same selection counts the same under the process pool, two
merged shards and the cluster, to the execution.

One Dask client alive at a time in this process (tests/harness/test_cluster.py): the cluster run
makes its own LocalCluster through --cluster local:2.
"""
import json
import os

import distributed  # noqa: F401  (the extra '.[cluster]', in make test's venv)

from harness.runners.bulk import command as bulk, codecov
from harness.runners.bulk.merge import merge_runs

from .test_cluster import opts


def counts(run):
    return codecov.load(os.path.join(run, codecov.FILE))


def test_merged_shards_and_a_cluster_run_count_what_the_process_pool_counts(tmp_path, capsys):
    pool, dask, merged = (str(tmp_path / n) for n in ("pool", "dask", "merged"))
    assert bulk.run_bulk(opts(pool), ["test"]) == 0
    shards = [str(tmp_path / f"shard{k}") for k in (1, 2)]
    for k, s in zip((1, 2), shards):
        assert bulk.run_bulk(opts(s, shard=(k, 2)), ["test"]) == 0
    assert merge_runs(shards[::-1], merged, ["test"]) == 0
    assert bulk.run_bulk(opts(dask, cluster="local:2"), ["test"]) == 0

    want = counts(pool)
    assert sum(want.insns.values()) > 1_000_000
    parts = [counts(s) for s in shards]
    assert parts[0] != want and parts[1] != want, "each shard counted only its slice"
    assert counts(merged) == parts[0] + parts[1] == want
    assert counts(dask) == want
    # the counts travelled beside the records, never in them
    for name in os.listdir(os.path.join(dask, "chunks")):
        assert codecov.CARRY not in json.load(open(os.path.join(dask, "chunks", name)))
    # both runs have the per-function figures and the page
    for run in (merged, dask):
        f = json.load(open(os.path.join(run, codecov.FUNCTIONS)))
        assert f["totals"] == json.load(open(os.path.join(pool, codecov.FUNCTIONS)))["totals"]
        assert os.path.isfile(os.path.join(run, "code_coverage.html"))
