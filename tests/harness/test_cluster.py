"""Scale out: one selection checked by the process pool, on a Dask cluster, and in four
shards merged gives the same chunk records; a Dask worker killed mid-run costs nothing.

The three-way test checks 24 sampled chunks of the synthetic corpus plus the 9 synthetic Modify
pseudo-chunks and the 6 edge chunks (39 records) under the quick profile, so every kind of record travels each way.
DECISION: the other tests (a killed worker, a scheduler that gives up, merge errors) use 8 chunks:
what they show does not grow with the selection.
"""
import json
import os
import signal

import distributed   # the extra '.[cluster]', in make test's venv
import pytest

from corpus.errors import CorpusError
from harness.runners.bulk import command as bulk, cluster, shard
from harness.runners.bulk.merge import merge_runs
from harness.options import DEFAULT_DATA, Options

from .native_programs import compiled


# what differs between two checks of the same chunk: the clock, never the comparison
TIMINGS = {"seconds", "timing", "cpu_seconds", "machine_cpu"}
N = 8
N_THREE_WAYS = 24
SYNTHETIC = len(bulk.synthetic_ids())      # the Modify pseudo-chunks and the edge chunks a selection gains


@pytest.fixture(scope="module", autouse=True)
def stand_in_compiled():
    """Built once here: the pool's, the cluster's and the shards' workers run the stand-in's
    program from their first instruction (native_programs)."""
    compiled()


def opts(out, **kw):
    return Options(**dict(dict(seed=4, profile="quick", n=N, jobs=1, out=str(out), data=DEFAULT_DATA), **kw))


def records(run):
    d = os.path.join(run, "chunks")
    return {name: {k: v for k, v in json.load(open(os.path.join(d, name))).items() if k not in TIMINGS}
            for name in sorted(os.listdir(d))}


def params(run):
    return json.load(open(os.path.join(run, "params.json")))


def summary(run):
    return json.load(open(os.path.join(run, "summary.json")))


def test_pool_cluster_and_four_merged_shards_write_identical_chunk_records(tmp_path, capsys):
    def opts3(out, **kw):
        return opts(out, n=N_THREE_WAYS, **kw)
    assert bulk.run_bulk(opts3(tmp_path / "pool", jobs=2), ["test"]) == 0
    assert bulk.run_bulk(opts3(tmp_path / "dask", cluster="local:2"), ["test"]) == 0
    for k in range(1, 5):
        assert bulk.run_bulk(opts3(tmp_path / f"shard{k}", shard=(k, 4)), ["test"]) == 0
    assert merge_runs([str(tmp_path / f"shard{k}") for k in (3, 1, 4, 2)], str(tmp_path / "merged"), ["test"]) == 0
    err = capsys.readouterr().err
    assert "cluster local:2: 2 workers, 2 threads" in err

    pool = records(tmp_path / "pool")
    assert len(pool) == N_THREE_WAYS + SYNTHETIC and all(r["error"] is None and not r["mismatches"] for r in pool.values())
    assert sum(r.get("machine_steps") or 0 for r in pool.values()) > 1_000_000     # the machine ran
    assert records(tmp_path / "dask") == pool
    assert records(tmp_path / "merged") == pool
    # the shards really split it: four non-empty slices, every chunk in exactly one
    slices = [params(tmp_path / f"shard{k}")["shard"]["indices"] for k in range(1, 5)]
    assert all(slices) and sorted(i for s in slices for i in s) == list(range(N_THREE_WAYS + SYNTHETIC))
    # one run directory, as unsplit: the whole selection, one summary with the same sums
    assert params(tmp_path / "merged")["chunks"] == params(tmp_path / "pool")["chunks"]
    assert "shard" not in params(tmp_path / "merged")
    assert [m["shard"] for m in params(tmp_path / "merged")["merged_from"]] == ["1/4", "2/4", "3/4", "4/4"]
    for key in ("chunks_done", "chunks_total", "mismatches", "errors", "counters", "quirks", "complete",
                "machine_steps", "status"):
        assert summary(tmp_path / "merged")[key] == summary(tmp_path / "pool")[key] == summary(tmp_path / "dask")[key], key
    assert os.path.isfile(tmp_path / "merged" / "report.html")
    assert "merged from" in (tmp_path / "merged" / "report.html").read_text()
    assert list((tmp_path / "merged").glob("*.xml")), "the merged run has its JUnit file"

    # the comparison can fail: one record checked otherwise is seen
    name = sorted(os.listdir(tmp_path / "merged" / "chunks"))[0]
    path = tmp_path / "merged" / "chunks" / name
    rec = json.loads(path.read_text())
    rec["counters"]["cases"] = rec["counters"].get("cases", 0) + 1
    path.write_text(json.dumps(rec))
    assert records(tmp_path / "merged") != pool


def test_a_dask_worker_killed_mid_run_costs_nothing_and_every_chunk_is_written_once(tmp_path, monkeypatch):
    # One client at a time in this process: a second Client alive during the run (each has its own
    # event loop) can fail the run's futures with "bound to a different event loop".
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc:
        with distributed.Client(lc) as before:
            pids = before.run(os.getpid)
        killed = []
        real_update = bulk.Progress.update

        def update(self, *a):               # after the first record: kill a worker that is busy
            real_update(self, *a)
            if not killed:
                processing = distributed.default_client().processing()     # the run's own client
                busy = [w for w, keys in processing.items() if keys]
                assert busy, "no worker had a chunk in flight"
                killed.append((busy[0], list(processing[busy[0]])))
                os.kill(pids[busy[0]], signal.SIGKILL)
        monkeypatch.setattr(bulk.Progress, "update", update)
        writes = []
        real_write = bulk.RunDir.write_chunk
        monkeypatch.setattr(bulk.RunDir, "write_chunk", lambda self, res: (writes.append(res["index"]),
                                                                          real_write(self, res))[1])
        bulk.run_bulk(opts(tmp_path / "run", cluster=lc.scheduler_address), ["test"])
        assert killed and killed[0][1], "a worker was killed with a chunk in flight"
        with distributed.Client(lc) as after:
            assert pids[killed[0][0]] not in after.run(os.getpid).values(), "the killed worker is gone"
    s = summary(tmp_path / "run")
    assert s["complete"] and s["chunks_done"] == N + SYNTHETIC and s["errors"] == 0 and s["mismatches"] == 0
    assert sorted(writes) == list(range(N + SYNTHETIC)), "every chunk recorded exactly once"
    lost = int(killed[0][1][0].rsplit("-", 1)[1])       # the chunk the dead worker was checking
    assert lost in writes


def run_shards(tmp_path, m, which, **kw):
    from .test_bulk import opts_for
    out = []
    for k in which:
        o = opts_for(tmp_path, shard=(k, m), out=str(tmp_path / f"s{k}"), **kw)
        bulk.run_bulk(o, ["test"])
        out.append(str(tmp_path / f"s{k}"))
    return out


def test_merge_names_the_missing_shards(tmp_path):
    runs = run_shards(tmp_path, 3, (1, 3))
    with pytest.raises(Exception) as e:
        merge_runs(runs, str(tmp_path / "merged"), ["test"])
    assert "missing shard 2/3 of 3" in str(e.value) and "SHARD=2/3" in str(e.value)
    assert not os.path.exists(tmp_path / "merged" / "params.json")


def test_merge_refuses_a_shard_run_under_other_parameters(tmp_path):
    runs = run_shards(tmp_path, 3, (1, 2)) + run_shards(tmp_path / "other", 3, (3,), seed=5)
    with pytest.raises(Exception) as e:
        merge_runs(runs, str(tmp_path / "merged"), ["test"])
    msg = str(e.value)
    assert "shard 3/3" in msg and "other parameters" in msg and "seed: run 4, now 5" in msg


def test_merge_refuses_an_incomplete_shard_and_a_shard_given_twice(tmp_path):
    runs = run_shards(tmp_path, 2, (1, 2))
    with pytest.raises(Exception, match="shard 1/2 given twice"):
        merge_runs([runs[0], runs[0], runs[1]], str(tmp_path / "m1"), ["test"])
    first = sorted(os.listdir(os.path.join(runs[1], "chunks")))[0]
    os.unlink(os.path.join(runs[1], "chunks", first))
    with pytest.raises(Exception, match=r"shard 2/2\) is incomplete: 1 of \d+ chunks have no record"):
        merge_runs(runs, str(tmp_path / "m2"), ["test"])


def test_make_merge_exits_2_with_the_error_on_one_line(tmp_path, capsys):
    from harness.__main__ import main
    runs = run_shards(tmp_path, 2, (2,))
    assert main(["merge", "--out", str(tmp_path / "m"), *runs]) == 2
    assert "harness: missing shard 1/2 of 2" in capsys.readouterr().err


def test_shards_are_deterministic_balanced_slices_of_the_selection():
    costs = [5000, 100, 2300, 2300, 800, 9000, 40, 40, 4096, 1200, 7, 3100]
    slices = [shard.select(list(range(len(costs))), costs, k, 4)[1] for k in range(1, 5)]
    assert slices == [shard.select(list(range(len(costs))), costs, k, 4)[1] for k in range(1, 5)]
    assert sorted(i for s in slices for i in s["indices"]) == list(range(len(costs)))
    loads = [s["predicted_cost"] for s in slices]
    assert max(loads) - min(loads) <= max(costs) and max(loads) < sum(costs) / 2
    assert shard.parse("2/8") == (2, 8)
    for bad in ("9/8", "0/3", "2", "a/b", "1/0"):
        with pytest.raises(Exception, match="SHARD="):
            shard.parse(bad)


def test_a_worker_reads_no_file_of_the_client(tmp_path):
    """The task carries the executable's and the chunk's bytes: a worker whose paths point nowhere
    writes the record the client's own process writes."""
    from harness.options import DEFAULT_IMAGE
    o = opts(tmp_path / "x")
    corpus = o.open_corpus()
    cid = next(c for c in corpus.chunk_ids() if corpus.chunk(c).anime.morphs)
    exe = open(DEFAULT_IMAGE, "rb").read()
    here = bulk.check_record(o, 0, cid, None, corpus.chunk, lambda: o.validate_image())
    far = Options(**dict(vars(o), image="/nowhere/standin.elf", data="/nowhere/DATA.BIN", _corpus=None))
    far_here = dict(here, repro=far.context(cid).repro())
    shipped = cluster.ship(corpus, cid, None)
    import pickle
    res = cluster.check_on_worker(far, 0, cid, None, pickle.loads(pickle.dumps(shipped)), exe, "t" * 64)
    strip = lambda r: {k: v for k, v in r.items() if k not in TIMINGS}
    assert "morph" in here["checks"] and here["error"] is None
    assert strip(res) == strip(far_here)


def test_a_chunk_without_morphs_carries_its_members_scene_for_the_objects_and_world_checks(tmp_path):
    """The objects and world checks read the member's setup section: a worker without the file
    gets the member's scene (as the corpus index keeps it) with every chunk of a run that selects
    them, and neither the scene nor the member's bytes with a run that does not."""
    o = opts(tmp_path / "x")
    corpus = o.open_corpus()
    cid = next(c for c in corpus.chunk_ids() if not corpus.chunk(c).anime.morphs)
    for only in (None, ["objects"], ["world"]):
        shipped = cluster.ship(corpus, cid, only)
        assert shipped.scene == corpus.chunk(cid).scene and shipped._member_z is None
    shipped = cluster.ship(corpus, cid, ["controllers"])
    with pytest.raises(Exception, match="CCSF bytes were not sent"):
        shipped.scene
    with pytest.raises(Exception, match="CCSF bytes were not sent"):
        shipped.file


def test_a_chunk_whose_scene_the_index_could_not_read_carries_its_member_to_fail_on_the_worker(tmp_path):
    """A setup section that is no scene fails the objects check on the worker, with the same
    CorpusError as in a run without a cluster: the task carries the member's bytes instead."""
    o = opts(tmp_path / "x")
    corpus = o.open_corpus()
    ch = corpus.chunk(next(c for c in corpus.chunk_ids() if not corpus.chunk(c).anime.morphs))

    class NoScene:
        id, member, name, data, names, ext, file = ch.id, ch.member, ch.name, ch.data, ch.names, ch.ext, ch.file

        @property
        def scene(self):
            raise CorpusError("Obj of 1 words (want 4)", member=ch.member)

    shipped = cluster.ShippedChunk(NoScene(), False, True)
    assert shipped.file.data == ch.file.data and shipped.scene == ch.scene


def test_when_the_scheduler_gives_up_on_a_chunk_the_run_stops_resumable_and_resume_finishes_it(
        tmp_path, monkeypatch, capsys):
    """No retries allowed: the killed worker's chunk fails the run (exit 1, a resume command with
    --cluster); what was written stays, and the resumed run checks only the rest."""
    import dask
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as lc:
        # One client at a time in this process (see the killed-worker test above).
        with distributed.Client(lc) as before:
            pids = before.run(os.getpid)
        real_update = bulk.Progress.update
        killed = []

        def update(self, *a):
            real_update(self, *a)
            if not killed:
                processing = distributed.default_client().processing()     # the run's own client
                busy = [w for w, keys in processing.items() if keys]
                assert busy, "no worker had a chunk in flight"
                killed.append(busy[0])
                os.kill(pids[busy[0]], signal.SIGKILL)
        monkeypatch.setattr(bulk.Progress, "update", update)
        writes = []
        real_write = bulk.RunDir.write_chunk
        monkeypatch.setattr(bulk.RunDir, "write_chunk", lambda self, res: (writes.append(res["index"]),
                                                                          real_write(self, res))[1])
        o = opts(tmp_path / "run", cluster=lc.scheduler_address)
        assert bulk.run_bulk(o, ["test"]) == 1
        err = capsys.readouterr().err
        assert "workers keep dying" in err and f"--cluster {lc.scheduler_address}" in err
        first = list(writes)
        assert 0 < len(first) < N + SYNTHETIC and not summary(tmp_path / "run")["complete"]
        bulk.run_bulk(opts(tmp_path / "run", cluster=lc.scheduler_address), ["test"])
    assert summary(tmp_path / "run")["complete"]
    assert sorted(writes) == list(range(N + SYNTHETIC)), "the resumed run checked only the chunks not yet written"


def test_a_worker_with_other_eediff_code_refuses_its_tasks_and_the_run_says_so(tmp_path, monkeypatch):
    from harness import HarnessError
    monkeypatch.setattr(bulk, "code_version", lambda: "0123456789ab")     # the client's sources differ
    with pytest.raises(HarnessError) as e:
        bulk.run_bulk(opts(tmp_path / "run", n=1, cluster="local:1"), ["test"])
    msg = str(e.value)
    assert "CLUSTER=local:1: the task of chunk" in msg and "failed on its worker" in msg
    assert "the run's is 0123456789ab: install the same eediff on every worker" in msg


def test_an_absurd_local_worker_count_is_refused_before_anything_starts(tmp_path):
    """CLUSTER=local:N with N beyond 4 per core (or not a count) is a usage error (exit 2) naming the
    value and the limit; no run directory is made and no worker process is started."""
    import subprocess
    import sys
    limit = cluster.MAX_LOCAL_WORKERS_PER_CORE * (os.cpu_count() or 1)
    for bad in ("99999999999999999999", str(limit + 1), "0", "-3", "two", ""):
        p = subprocess.run([sys.executable, "-m", "harness", "bulk", "--n", "2", "--cluster", f"local:{bad}",
                            "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, (bad, p.stderr)
        assert f"CLUSTER=local:{bad[:21]}" in p.stderr and f"from 1 to {limit} workers" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert not (tmp_path / "run").exists()
    assert cluster.local_workers(f"local:{limit}") == limit and cluster.local_workers("tcp://h:8786") is None


def test_a_passing_cluster_run_shuts_down_quietly(tmp_path):
    """No traceback, no distributed warning, nothing after the closing lines: the workers close
    before the scheduler; every record is written and no worker process outlives the run."""
    import subprocess
    import sys
    import psutil
    p = subprocess.Popen([sys.executable, "-m", "harness", "bulk", "--n", "3", "--profile", "quick",
                          "--cluster", "local:2", "--out", str(tmp_path / "run")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    me = psutil.Process(p.pid)
    children, procs = {}, {}
    while p.poll() is None:
        try:
            for c in me.children(recursive=True):
                children[c.pid] = " ".join(c.cmdline())[-90:]
                procs.setdefault(c.pid, c)
        except psutil.Error:
            pass
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert children, "the run started its worker processes"
    assert "Traceback" not in err and "distributed." not in err and "Failed to communicate" not in err, err
    s = summary(tmp_path / "run")
    assert s["complete"] and s["chunks_done"] == s["chunks_total"] == 3 + SYNTHETIC
    # a helper sees its parent's end on its pipe a moment later (multiprocessing's resource
    # tracker): a process still there after 10 s outlived the run
    _, still = psutil.wait_procs(list(procs.values()), timeout=10)
    alive = [children[c.pid] for c in still if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"worker processes outlived the run: {alive}"


def test_a_scheduler_that_goes_away_mid_run_stops_it_resumable_and_a_new_one_finishes_it(
        tmp_path, monkeypatch, capsys):
    """The scheduler closes after the first record: the run stops (exit 1) naming the scheduler
    that went away, with a resume command; what was written stays; a resume on a new cluster
    checks only the rest, so every chunk is recorded exactly once."""
    writes = []
    real_write = bulk.RunDir.write_chunk
    monkeypatch.setattr(bulk.RunDir, "write_chunk", lambda self, res: (writes.append(res["index"]),
                                                                      real_write(self, res))[1])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc:
        real_update = bulk.Progress.update
        gone = []

        def update(self, *a):                       # after the first record: the scheduler goes away
            real_update(self, *a)
            if not gone:
                gone.append(lc.scheduler_address)
                lc.sync(lc.scheduler.close)
        monkeypatch.setattr(bulk.Progress, "update", update)
        rc = bulk.run_bulk(opts(tmp_path / "run", cluster=lc.scheduler_address), ["test"])
        monkeypatch.setattr(bulk.Progress, "update", real_update)
        # the scheduler is closed already: leaving the cluster must not ask it to terminate (the
        # request would retry the connection for Dask's 30 s connect timeout)
        lc.shutdown_scheduler = False
    err = capsys.readouterr().err
    assert gone and rc != 0, err
    assert "resume with:" in err and "Traceback" not in err, err
    first = list(writes)
    assert 0 < len(first) < N + SYNTHETIC and not summary(tmp_path / "run")["complete"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc2:
        bulk.run_bulk(opts(tmp_path / "run", cluster=lc2.scheduler_address, force=True), ["test"])
    assert summary(tmp_path / "run")["complete"]
    assert sorted(writes) == list(range(N + SYNTHETIC)), "each chunk recorded once, before or after the resume"
