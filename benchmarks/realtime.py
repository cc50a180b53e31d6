"""`make bench`, nightly_realtime: the exhaustive nightly against a PS2 running the same code.

The figure is the nightly's emulated instructions divided by the console's rate (PS2_RATE
instructions a second), divided by the nightly's wall time on the machine at hand, with JOBS
workers (two, the machine the goal is set for): above 1.0 the harness emulates, references and
compares every record in less time than the console would take to execute the game's
instructions alone. The goal is judged on the exhaustive nightly (every chunk of the corpus); a
smaller sample (EEDIFF_BENCH_REALTIME_N, for a quick look) prints its figure unjudged, as its
chunks are not the nightly's mix.

    python -m benchmarks.realtime [N]
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

PS2_RATE = 294.9e6        # EE instructions a second (a 294.912 MHz core at one instruction a cycle)
GOAL = 1.0
JOBS = 2
SEED = 4
ALL = 4091                # every Anime chunk of the bundled corpus: the exhaustive nightly


def nightly(n: int, jobs: int = JOBS) -> dict:
    """(wall seconds, summary.json) of one nightly bulk of n chunks, the executable compiled
    beforehand (the disk cache) so that the wall time is the run's own."""
    out = tempfile.mkdtemp(prefix="eediff-bench-realtime-")
    cmd = [sys.executable, "-m", "harness", "bulk", "--n", str(n), "--seed", str(SEED), "--profile", "nightly",
           "--jobs", str(jobs), "--no-shrink", "--fresh", "--runs", out]
    try:
        # one chunk first, untimed: translates and compiles the executable into the cache
        subprocess.run(cmd + ["--out", os.path.join(out, "warm"), "--n", "1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, env=dict(os.environ, EEMU_COMPILE_AFTER="0"))
        t0 = time.perf_counter()
        subprocess.run(cmd + ["--out", os.path.join(out, "run")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - t0
        with open(os.path.join(out, "run", "summary.json"), encoding="utf-8") as f:
            s = json.load(f)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "summary": s}


def realtime(steps: int, wall: float) -> float:
    """Emulated instructions / PS2_RATE / wall seconds."""
    return steps / PS2_RATE / max(wall, 1e-9)


def main(n: int = None) -> int:
    if n is None:
        n = int(os.environ.get("EEDIFF_BENCH_REALTIME_N") or ALL)
    r = nightly(n)
    s = r["summary"]
    steps, wall = s["machine_steps"], r["wall"]
    figure = realtime(steps, wall)
    exhaustive = s["chunks_done"] >= s["chunks_total"] and n >= ALL
    print(f"nightly_realtime ({s['chunks_done']}/{s['chunks_total']} chunks, nightly profile, seed {SEED}, "
          f"jobs {JOBS}, {s['status']}): {steps:,} instructions, {steps / PS2_RATE:.1f} s on a PS2 "
          f"({PS2_RATE / 1e6:.1f} M/s); {wall:.1f} s wall here: {figure:.2f}")
    if exhaustive:
        print(f"  goal >= {GOAL} on the exhaustive nightly: "
              f"{goal('nightly_realtime >= 1.0', figure >= GOAL and s['status'] == 'pass')}")
    else:
        print(f"  a sample of {n} chunks: the goal (>= {GOAL}) is judged on the exhaustive nightly only")
    return verdict("benchmarks.realtime")


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else None))
