"""The console's closing block says what failed: the failing chunks (up to 10),
each one's first mismatch and its one-line repro, and per-check counts that add up to the total."""
import os
import re
import subprocess
import sys


from harness.runners.bulk.command import format_summary
from harness.options import ROOT
from harness.compare.tally import MISMATCHES_KEPT_PER_CHUNK
from tests.harness.mutant_elfs import built

PY = sys.executable
NOTE_MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "note_list_file_order.elf")


def bulk(tmp_path, *args):
    return subprocess.run([PY, "-m", "harness", "bulk", "--runs", str(tmp_path), "--fresh", "--jobs", "2", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_a_failing_bulk_lists_each_failing_chunk_with_its_first_mismatch_and_repro(tmp_path):
    r = bulk(tmp_path, "--n", "4", "--check", "notes", "--image", built(NOTE_MUTANT))
    assert r.returncode == 1, r.stdout + r.stderr
    block = r.stdout.split("  failing chunks (", 1)[1]
    failed = int(re.search(r"(\d+) failed", r.stdout)[1])
    chunks = re.findall(r"^    (\S+::\S+): (\d+) mismatch", block, re.M)
    assert len(chunks) == min(failed, 10) and failed > 0, r.stdout
    firsts = re.findall(r"^      first: notes \|.*: reference .*, game ", block, re.M)
    repros = re.findall(r"^      repro: (.*)$", block, re.M)
    assert len(firsts) == len(repros) == len(chunks), block
    # the listed repro reproduces the failure on its own
    again = subprocess.run(repros[0].replace(".venv/bin/python", PY, 1), shell=True, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 1 and "notes" in again.stdout, again.stdout + again.stderr


def test_a_clean_bulk_lists_no_failing_chunk(tmp_path):
    r = bulk(tmp_path, "--n", "2", "--check", "notes")
    assert r.returncode == 0 and "failing chunks" not in r.stdout, r.stdout + r.stderr


def summary(**kw):
    s = {"run_id": "r", "status": "mismatches", "chunks_done": 12, "chunks_total": 12,
         "chunks_failed": 12, "mismatches": 2650, "errors": 0, "seconds": 1.0, "chunks_per_minute": 1,
         "counters": {}, "quirks": {}, "checks": {"playback": {"chunks": 12, "chunks_failed": 12, "mismatches": 2400},
                                                    "notes": {"chunks": 12, "chunks_failed": 1, "mismatches": 50}},
         "mismatches_dropped": 200,
         "failing_chunks": [{"chunk": f"m{i}.cmp::ANM_x", "mismatches": 200, "error": None,
                             "first": {"check": "playback", "field": "pose", "time": 3, "expected": "0x3f800000",
                                       "got": "0x3f800001", "ulp": 1}, "repro": f"repro {i}"}
                            for i in range(10)]}
    s.update(kw)
    return s


def test_the_per_check_counts_and_the_cap_add_up_to_the_top_line():
    text = format_summary(summary())
    line = next(l for l in text.splitlines() if "mismatches by check" in l)
    counted = sum(int(n) for n in re.findall(r"(?:playback|notes) (\d+)", line))
    beyond = int(re.search(rf"(\d+) more past the cap of {MISMATCHES_KEPT_PER_CHUNK} recorded per chunk", line)[1])
    assert counted + beyond == 2650


def test_more_than_ten_failing_chunks_says_how_many_were_left_out():
    text = format_summary(summary())
    assert "failing chunks (first 10 of 12;" in text and text.count("      repro: ") == 10
    assert "reference 0x3f800000, game 0x3f800001 (1 ulp)" in text
