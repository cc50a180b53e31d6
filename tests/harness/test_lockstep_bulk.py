"""The two engines in lockstep on the real workload: a quick-profile
bulk of 10 chunks with every check, where every native block also runs in the Python engine and
any difference stops the run at the first differing instruction. It must be clean."""
import json
import os
import subprocess
import sys

import pytest

from eemu_ext.engines.native.build import compiler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine to lockstep")
def test_a_quick_bulk_of_ten_chunks_is_clean_in_lockstep(tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "harness", "bulk", "--n", "10", "--seed", "4", "--profile", "quick",
                        "--jobs", "2", "--engine", "lockstep", "--fresh", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    s = json.loads((out / "summary.json").read_text())
    assert s["chunks_done"] >= 10 and s["mismatches"] == 0 and s["errors"] == 0
    assert s["machine_steps"] > 1_000_000                 # the machine really ran
