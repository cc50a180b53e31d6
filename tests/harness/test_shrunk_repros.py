"""Every failing chunk of a bulk has its shrunk repro (not only a worker's first few), and `one`
on the same chunk shrinks the same mismatch to the same repro."""
import json
import os
import subprocess
import sys


from harness.options import ROOT
from tests.harness.mutant_elfs import built

PY = sys.executable
NOTE_MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "note_list_file_order.elf")


def test_every_failing_chunk_has_a_shrunk_repro_that_one_gives_too(tmp_path):
    run = tmp_path / "run"
    r = subprocess.run([PY, "-m", "harness", "bulk", "--n", "12", "--check", "notes", "--jobs", "2",
                        "--image", built(NOTE_MUTANT), "--out", str(run)], cwd=ROOT, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    failing = []
    for name in sorted(os.listdir(run / "chunks")):
        rec = json.load(open(run / "chunks" / name))
        if rec["mismatches"]:
            failing.append(rec)
    assert len(failing) >= 2
    for rec in failing:
        first = rec["mismatches"][0]
        assert first.get("shrunk") and first["shrunk"].get("repro"), rec["chunk"]
    rec = failing[-1]
    one = subprocess.run([PY, "-m", "harness", "one", "--case", rec["chunk"], "--check", "notes", "--json",
                          "--image", NOTE_MUTANT], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert one.returncode == 1, one.stderr[-2000:]
    res = json.loads(one.stdout)
    assert res["mismatches"][0]["shrunk"] == rec["mismatches"][0]["shrunk"]
