"""Every mismatch's repro reproduces and shows that mismatch: `one --time T`
(`make one TIME=`), and a DISC run's repro names the disc alone."""
import io
import json
import os
import shlex
import subprocess
import sys

import pytest

from harness.options import DEFAULT_DATA, ROOT
from tests.harness.mutant_elfs import built

PY = sys.executable
NOTE_MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "note_list_file_order.elf")
CASE = "ecm1.cmp::ANM_ecm1001"     # two note mismatches at different times under this mutant


def one_json(*args):
    r = subprocess.run([PY, "-m", "harness", "one", "--json", "--no-shrink", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    return json.loads(r.stdout)["mismatches"]


def test_the_repro_of_a_later_mismatch_shows_that_mismatch_first():
    mism = one_json("--case", CASE, "--check", "notes", "--image", built(NOTE_MUTANT))
    assert len(mism) >= 2 and mism[-1]["time"] != mism[0]["time"]
    last = mism[-1]
    assert last["repro"].endswith(f"--time {last['time']}")
    r = subprocess.run(last["repro"].replace(".venv/bin/python", PY, 1) + " --no-shrink", shell=True,
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.splitlines()[0].startswith(f"notes | {CASE} | time {last['time']} |"), r.stdout


def test_make_one_takes_show_and_time():
    mism = one_json("--case", CASE, "--check", "notes", "--image", built(NOTE_MUTANT))
    t = mism[-1]["time"]
    r = subprocess.run(["make", "-s", "one", f"CASE={CASE}", "CHECK=notes", f"IMAGE={NOTE_MUTANT}",
                        f"TIME={t}", "SHOW=1", "PROFILE=quick"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Error 1" in r.stderr, r.stdout + r.stderr   # make's 2 for a recipe's 1
    heads = [l for l in r.stdout.splitlines() if l.startswith("notes | ")]
    assert len(heads) == 1 and f"| time {t} |" in heads[0], r.stdout


def test_a_disc_runs_repro_names_the_disc_and_not_the_extracted_executable(tmp_path):
    pycdlib = pytest.importorskip("pycdlib")
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=1)
    elf = open(built(NOTE_MUTANT), "rb").read()
    iso.add_fp(io.BytesIO(elf), len(elf), "/SLUS_202.67;1")
    iso.add_directory("/DATA")
    with open(DEFAULT_DATA, "rb") as data:
        iso.add_fp(data, os.path.getsize(DEFAULT_DATA), "/DATA/DATA.BIN;1")
        iso.write(str(tmp_path / "disc.iso"))
    iso.close()
    disc = str(tmp_path / "disc.iso")
    mism = one_json("--case", CASE, "--check", "notes", "--disc", disc)
    assert mism, "the mutant on the disc should fail its note check"
    words = shlex.split(mism[0]["repro"])
    assert words[words.index("--disc") + 1] == disc and "--image" not in words, mism[0]["repro"]


def one_text(*args):
    return subprocess.run([PY, "-m", "harness", "one", "--no-shrink", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("bad", ["abc", "1.5", ""])
def test_time_must_be_a_whole_number(bad):
    r = one_text("--case", CASE, "--check", "notes", "--time", bad)
    assert r.returncode == 2 and "--time" in r.stderr and "whole number" in r.stderr, r.stdout + r.stderr


def test_a_time_with_no_mismatch_says_how_many_it_hid_and_the_chunk_still_fails():
    mism = one_json("--case", CASE, "--check", "notes", "--image", built(NOTE_MUTANT))
    quiet = max(m["time"] for m in mism) + 1
    r = one_text("--case", CASE, "--check", "notes", "--image", NOTE_MUTANT, "--time", str(quiet))
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"0 mismatches at time {quiet}" in r.stdout and f"{len(mism)} at other times hidden" in r.stdout


def test_the_repro_of_every_case_built_by_code_runs_it(capsys):
    # a bulk's record of a synthetic case carries `one --case <its id>`: that command checks it
    from harness.__main__ import main
    from harness.runners.bulk.command import synthetic_ids
    for cid in synthetic_ids():
        assert main(["one", "--case", cid, "--profile", "nightly"]) == 0, cid
        out = capsys.readouterr().out
        assert out.splitlines()[-1].startswith(f"{cid}: checks ") and "0 mismatches" in out, out
