"""The two engines in lockstep on the real workload: a quick-profile bulk with every check, where
every native block also runs in the Python engine and any difference stops the run at the first
differing instruction. It must be clean.

The default suite runs the chunks of the 10-chunk sample that between them execute every kind of
instruction (row) the whole sample executes, each branch kind taken and not taken, with the
synthetic cases; the native engine alone runs the whole sample and the test requires the lockstep
run to have executed each of its kinds. --slow runs the whole sample in lockstep."""
import json
import os
import subprocess
import sys

import pytest

from eemu_ext import Machine
from eemu_ext.engines.native.build import compiler
from harness.options import DEFAULT_IMAGE

from .native_programs import compiled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_native = pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine to lockstep")

# DECISION: of the 10-chunk sample (--n 10 --seed 4), these two and the synthetic cases execute
# all 119 instruction kinds and branch directions of the whole sample (the synthetic cases alone
# run 117; xd101 adds jalr and xori) and 97% of its instructions and branch directions by address,
# in a sixth of its lockstep time (35 of 214 worker-seconds).
KINDS_SAMPLE = ["xd016.cmp::ANM_xd016000", "xd101.cmp::ANM_xd101002"]


def bulk(out, *select, engine="lockstep"):
    r = subprocess.run([sys.executable, "-m", "harness", "bulk", *select, "--seed", "4", "--profile", "quick",
                        "--jobs", "2", "--engine", engine, "--fresh", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    s = json.loads((out / "summary.json").read_text())
    assert s["mismatches"] == 0 and s["errors"] == 0
    return s


def kinds(run):
    """The instruction kinds a run executed (row mnemonics), and ("taken"|"not taken", mnemonic) of
    each branch direction, from its coverage.json."""
    m = Machine()
    m.load_elf(DEFAULT_IMAGE)
    cov = json.loads((run / "coverage.json").read_text())

    def kind(addr):
        return m.decoder.rows[m.decoded(int(addr, 16))[0]].mnemonic
    return ({kind(a) for a in cov["insns"]} | {("taken", kind(a)) for a in cov["taken"]}
            | {("not taken", kind(a)) for a in cov["not_taken"]})


@needs_native
def test_a_quick_bulk_running_every_instruction_kind_of_ten_chunks_is_clean_in_lockstep(tmp_path):
    from harness.runners.bulk.command import synthetic_ids
    s = bulk(tmp_path / "lockstep", "--chunks", ",".join(KINDS_SAMPLE + synthetic_ids()))
    assert s["chunks_done"] == len(KINDS_SAMPLE) + len(synthetic_ids())
    assert s["machine_steps"] > 1_000_000                 # the machine really ran
    compiled(DEFAULT_IMAGE)            # built once: the native run does not wait in the Python engine
    bulk(tmp_path / "native", "--n", "10", engine="native")
    missing = kinds(tmp_path / "native") - kinds(tmp_path / "lockstep")
    assert not missing, f"the ten-chunk sample executes kinds the lockstep run did not: {sorted(map(str, missing))}"


@pytest.mark.slow
@needs_native
def test_a_quick_bulk_of_ten_chunks_is_clean_in_lockstep(tmp_path):
    s = bulk(tmp_path / "run", "--n", "10")
    assert s["chunks_done"] >= 10
    assert s["machine_steps"] > 1_000_000                 # the machine really ran
