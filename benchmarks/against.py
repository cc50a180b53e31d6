"""`make bench`, against: the nightly at this commit against the nightly at an earlier one, in one run.

Each earlier commit is checked out as a git worktree (build/bench-trees/<rev>, made once, kept)
and runs from its own sources on this tree's interpreter and on the same DATA.BIN, so the two
differ only in the code. The rounds alternate (earlier, here, earlier, here, ...) so that a
shared machine's load falls on both alike, and each side's figure is its best round (timeit's
rule: noise only ever adds time). The figure is the ratio of wall times, with JOBS workers, of
the nightly profile on the same sample of N chunks (seed 4); the CPU ratio is printed beside it.

The commits and their goals:
- PIPELINE_BASE, the tree before the checks were put on one pipeline: at most 1.05x;
- SPEED_BASE, the exhaustive nightly when its speed was first measured: at most 0.4x.

DECISION: N defaults to SAMPLE_N chunks, not the whole corpus: four full nightlies would take an
hour here. The sample is bulk's own seeded sample, the nightly's mix of chunk kinds;
EEDIFF_BENCH_AGAINST_N=4091 runs the exhaustive nightly on both sides.

    python -m benchmarks.against [REV ...]     (make bench runs it on both commits above)
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchmarks.goals import goal, verdict

PIPELINE_BASE = "4190386"   # the last commit before the one-pipeline work
SPEED_BASE = "59a78f6"      # the tree whose exhaustive nightly took 307 s on two cores
GOALS = {PIPELINE_BASE: ("nightly within 1.05x of the tree before one pipeline", 1.05),
         SPEED_BASE: ("nightly at most 0.4x of the first measured exhaustive nightly", 0.4)}
SAMPLE_N = 400
ROUNDS = 2
JOBS = 2
SEED = 4
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tree(rev: str) -> str:
    """The worktree of `rev` under build/bench-trees, made on first use."""
    where = os.path.join(ROOT, "build", "bench-trees", rev)
    if not os.path.isdir(where):
        os.makedirs(os.path.dirname(where), exist_ok=True)
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", where, rev], check=True,
                       stdout=subprocess.DEVNULL)
    return where


def nightly(src: str, n: int, data: str, out: str) -> dict:
    """One nightly bulk of n chunks from the sources at `src`: wall and CPU seconds, and its summary."""
    env = dict(os.environ, PYTHONPATH=src)
    cmd = [sys.executable, "-m", "harness", "bulk", "--n", str(n), "--seed", str(SEED), "--profile", "nightly",
           "--jobs", str(JOBS), "--no-shrink", "--fresh", "--data", data, "--runs", out, "--out",
           os.path.join(out, "run")]
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = os.times()
    with open(os.path.join(out, "run", "summary.json"), encoding="utf-8") as f:
        s = json.load(f)
    shutil.rmtree(os.path.join(out, "run"), ignore_errors=True)
    return {"wall": wall, "cpu": (after.children_user - before.children_user)
            + (after.children_system - before.children_system), "summary": s}


def against(rev: str, n: int, data: str) -> dict:
    """{"earlier": [rounds], "here": [rounds]} of the nightly at `rev` and at this tree, alternated."""
    sides = {"earlier": tree(rev), "here": ROOT}
    out = tempfile.mkdtemp(prefix="eediff-bench-against-")
    try:
        for src in sides.values():        # untimed: each tree translates and compiles the executable
            subprocess.run([sys.executable, "-m", "harness", "bulk", "--n", "1", "--seed", str(SEED),
                            "--profile", "nightly", "--jobs", "1", "--no-shrink", "--fresh", "--data", data,
                            "--runs", out, "--out", os.path.join(out, "warm")], cwd=src,
                           env=dict(os.environ, PYTHONPATH=src, EEMU_COMPILE_AFTER="0"), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        rounds = {k: [] for k in sides}
        for _ in range(ROUNDS):
            for k, src in sides.items():
                rounds[k].append(nightly(src, n, data, out))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return rounds


def main(revs=None) -> int:
    revs = revs or list(GOALS)
    n = int(os.environ.get("EEDIFF_BENCH_AGAINST_N") or SAMPLE_N)
    data = os.path.join(ROOT, "build", "synth", "DATA.BIN")
    for rev in revs:
        try:
            r = against(rev, n, data)
            if any(x["summary"].get("chunks_done", 0) == 0 for v in r.values() for x in v):
                raise OSError("a side checked no chunk")
        except (subprocess.CalledProcessError, OSError) as exc:
            print(f"against {rev}: not measured: {exc}")
            goal(f"against {rev}: measured", False)
            continue
        best = {k: min(v, key=lambda x: x["wall"]) for k, v in r.items()}
        e, h = best["earlier"], best["here"]
        ratio, cpu = h["wall"] / max(e["wall"], 1e-9), h["cpu"] / max(e["cpu"], 1e-9)
        for k, b in best.items():
            s = b["summary"]
            print(f"against {rev}, {k:7s}: {s['chunks_done']}/{s['chunks_total']} chunks, {s['status']}, "
                  f"{s.get('machine_steps', 0):,} instructions; wall {b['wall']:.1f} s, CPU {b['cpu']:.1f} s "
                  f"(rounds: {', '.join('%.1f' % x['wall'] for x in r[k])} s)")
        text, bar = GOALS.get(rev, (f"nightly against {rev}", None))
        verdict_ = "" if bar is None else f"; goal <= {bar}x: {goal(text, ratio <= bar and h['summary']['status'] == 'pass')}"
        print(f"against {rev}: here / earlier = {ratio:.2f}x wall, {cpu:.2f}x CPU, nightly profile, {n} chunks, "
              f"jobs {JOBS}, best of {ROUNDS}{verdict_}")
    return verdict("benchmarks.against")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
