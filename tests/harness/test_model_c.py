"""A model in a second language (docs/examples/model-c/): the C notes model, built here with the
host's compiler, passes `make bulk MODEL=` and check-truth for its kind, and its --wrong flag is
caught by both, with repros that show the mismatch again.
"""
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from harness.options import Options
from harness.runners import bulk
from harness.runners import truth_export as export
from harness.runners.check_truth import check_truth

from .models import CHUNKS, ROOT

SOURCE = os.path.join(ROOT, "docs", "examples", "model-c", "notes_model.c")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no host C compiler (cc) to build docs/examples/model-c")
    exe = str(tmp_path_factory.mktemp("model-c") / "notes_model")
    subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, SOURCE], check=True, timeout=120)
    return shlex.quote(exe)


def bulk_run(tmp_path, name, cmd):
    opts = Options(seed=4, profile="nightly", jobs=1, n=20, checks=["notes"], out=str(tmp_path / name),
                   runs=str(tmp_path / "runs"), model=cmd)
    return bulk.run_bulk(opts)


def test_the_c_model_passes_a_note_bulk_and_its_wrong_flag_fails_it(model, tmp_path, capsys):
    assert bulk_run(tmp_path, "right", model) == 0
    out = capsys.readouterr().out
    assert "PASS (exit 0)" in out and "compared 0 of" not in out
    assert bulk_run(tmp_path, "wrong", model + " --wrong") == 1
    out = capsys.readouterr().out
    repro = next(line.split("repro: ", 1)[1] for line in out.splitlines() if "repro: " in line)
    words = shlex.split(repro)
    done = subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "| notes" in done.stdout, done.stdout + done.stderr


def test_check_truth_with_the_c_model_finds_no_mismatch_and_catches_its_wrong_flag(model, tmp_path, capsys):
    path = str(tmp_path / "truth.jsonl")
    export.export(Options(seed=4, profile="nightly", chunk_ids=list(CHUNKS), checks=["notes"]), path, progress=None)
    status, _ = check_truth(path, model_cmd=model, check="notes")
    out = capsys.readouterr().out
    assert status == 0 and " 0 mismatches" in out, out[-2000:]
    status, _ = check_truth(path, model_cmd=model + " --wrong", check="notes")
    out = capsys.readouterr().out
    assert status == 1 and "mismatch" in out


def test_the_c_model_answers_another_kind_with_an_error_line(model):
    line = '{"chunk":"a.cmp::ANM_a","anime":"","queries":[{"kind":"controller","i":0}]}\n'
    done = subprocess.run(shlex.split(model), input=line, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and '"error":"this model answers notes queries only' in done.stdout
