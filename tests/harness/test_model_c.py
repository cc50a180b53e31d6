"""A model in a second language (docs/examples/model-c/): the C model of the notes and controller
queries (the direct light's among them), built here with the host's compiler, passes `make bulk
MODEL=` and check-truth for its kinds with its ledger complete as the run judges it, and its
--wrong flag is caught by both, with repros that show the mismatch again. Its EE float arithmetic gives the hw column of ee-float.md §5's vectors.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from harness.options import Options
from harness.runners.bulk import command as bulk
from harness.runners.truth_runs import truth_export as export
from harness.runners.truth_runs.check_truth import check_truth

from .models import CHUNKS, ROOT, ledger_complete
from .test_direct_light import ROOMS

HERE = os.path.join(ROOT, "docs", "examples", "model-c")
SOURCES = [os.path.join(HERE, f) for f in ("model.c", "controllers.c", "ee_float.c")]
VECTORS = os.path.join(ROOT, "docs", "spec", "ee-float.md")


def compiler():
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no host C compiler (cc) to build docs/examples/model-c")
    return cc


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("model-c") / "model")
    subprocess.run([compiler(), "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe] + SOURCES + ["-lm"],
                   check=True, timeout=120)
    return shlex.quote(exe)


def bulk_run(tmp_path, name, cmd, check, n=20, chunk_ids=None):
    opts = Options(seed=4, profile="nightly", jobs=1, n=n, checks=[check], out=str(tmp_path / name),
                   runs=str(tmp_path / "runs"), model=cmd, chunk_ids=chunk_ids)
    status = bulk.run_bulk(opts)
    return status, json.load(open(tmp_path / name / "summary.json", encoding="utf-8"))


def first_repro_fails(out, check):
    repro = next(line.split("repro: ", 1)[1] for line in out.splitlines() if "repro: " in line)
    words = shlex.split(repro)
    done = subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and f"{check}" in done.stdout and "mismatch" in done.stdout, done.stdout + done.stderr


# ids without a check word, so that `pytest -k notes` (tests/differential alone) leaves them out
@pytest.mark.parametrize("check, counted", [("notes", "notes"), ("controllers", "keyed rotations")],
                         ids=["note-model", "controller-model"])
def test_the_c_model_passes_a_bulk_of_its_kinds_with_its_ledger_complete_and_its_wrong_flag_fails_it(
        model, tmp_path, capsys, check, counted):
    status, summary = bulk_run(tmp_path, "right", model, check)
    out = capsys.readouterr().out
    assert status == 0 and summary["status"] == "pass" and "PASS (exit 0)" in out, out[-3000:]
    assert ledger_complete(summary) and counted in out, (summary["ledger"], summary["left_out"])
    if check == "controllers":
        assert "single-value rotations" in out and "multistep checks" in out
        assert summary["ledger"]["direct light records"][1] > 0      # the edge chunk's lights at least
    status, _ = bulk_run(tmp_path, "wrong", model + " --wrong", check)
    out = capsys.readouterr().out
    assert status == 1
    first_repro_fails(out, check)


def chunk_fields(out_dir):
    return {m["field"] for f in os.listdir(out_dir / "chunks")
            for m in json.load(open(out_dir / "chunks" / f, encoding="utf-8"))["mismatches"]}


def test_the_c_model_answers_every_event_rooms_direct_light_and_its_wrong_flag_is_caught_on_a_light(
        model, tmp_path, capsys):
    status, summary = bulk_run(tmp_path, "rooms", model, "controllers", chunk_ids=ROOMS)
    out = capsys.readouterr().out
    assert status == 0 and summary["status"] == "pass" and ledger_complete(summary), out[-3000:]
    assert summary["ledger"]["direct light records"][1] >= len(ROOMS) and "direct light records" in out
    status, _ = bulk_run(tmp_path, "rooms-wrong", model + " --wrong", "controllers", chunk_ids=ROOMS)
    capsys.readouterr()
    assert status == 1 and any(f.startswith("light.") for f in chunk_fields(tmp_path / "rooms-wrong"))
    path = str(tmp_path / "rooms.jsonl")
    export.export(Options(seed=4, profile="nightly", chunk_ids=ROOMS, checks=["controllers"]), path, progress=None)
    status, summary = check_truth(path, model_cmd=model, check="controllers")
    out = capsys.readouterr().out
    assert status == 0 and " 0 mismatches" in out and summary["queries"] > 0, out[-2000:]
    status, _ = check_truth(path, model_cmd=model + " --wrong", check="controllers")
    out = capsys.readouterr().out
    assert status == 1 and "light." in out and "mismatch" in out, out[-2000:]


@pytest.mark.parametrize("check", ["notes", "controllers"], ids=["note-model", "controller-model"])
def test_check_truth_with_the_c_model_finds_no_mismatch_and_catches_its_wrong_flag(model, tmp_path, capsys, check):
    path = str(tmp_path / "truth.jsonl")
    export.export(Options(seed=4, profile="nightly", chunk_ids=list(CHUNKS), checks=[check]), path, progress=None)
    status, summary = check_truth(path, model_cmd=model, check=check)
    out = capsys.readouterr().out
    assert status == 0 and " 0 mismatches" in out and summary["queries"] > 0, out[-2000:]
    status, _ = check_truth(path, model_cmd=model + " --wrong", check=check)
    out = capsys.readouterr().out
    assert status == 1 and "mismatch" in out


@pytest.mark.parametrize("request_line, why", [
    ('{"chunk":"a.cmp::ANM_a","anime":"","queries":[{"kind":"fobj","i":0}]}',
     "this model answers notes, controller, multistep and light queries only"),
    ('{"chunk":"a.cmp::ANM_a","anime":"","float_model":"trunc","queries":[{"kind":"controller","i":0}]}',
     "this model computes the hw float model only"),
    ('{"chunk":"a.cmp::ANM_a","anime":"","float_model":"trunc","queries":[{"kind":"light","i":0}]}',
     "this model computes the hw float model only"),
], ids=["another-kind", "controller-under-trunc", "light-under-trunc"])
def test_the_c_model_answers_what_it_cannot_compute_with_an_error_line(model, request_line, why):
    done = subprocess.run(shlex.split(model), input=request_line + "\n", capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and f'"error":"{why}' in done.stdout and '"chunk":"a.cmp::ANM_a"' in done.stdout


DRIVER = r"""
#include <stdio.h>
#include "ee_float.h"
int main(void) {
    char op[16];
    unsigned acc, a, b;
    while (scanf("%15s %x %x %x", op, &acc, &a, &b) == 4) {
        uint32_t fs[4] = {acc, a, 0, 0}, ft[4] = {EE_ONE, b, 0, 0}, r = 0;
        switch (op[0] + op[1]) {
        case 'a' + 'd': r = ee_add(a, b); break;
        case 's' + 'u': r = ee_sub(a, b); break;
        case 'm' + 'u': r = ee_mul(a, b); break;
        case 'm' + 'a': r = ee_mac4(fs, ft); break;     /* ACC x 1.0 is ACC: a madd onto ACC */
        case 'd' + 'i': r = ee_div(a, b); break;
        case 's' + 'q': r = ee_sqrt(b); break;
        case 'c' + 'v': r = ee_from_int(a); break;
        }
        printf("%08X\n", r);
    }
    return 0;
}
"""
ROW = re.compile(r"^\| \d+ \| (add|sub|mul|madd|div|sqrt|cvt\.s\.w) \| ([^|]*) \| ([^|]*) \| ([0-9A-F]{8})")


def test_the_c_models_ee_float_gives_the_hw_column_of_the_specs_vectors(tmp_path):
    src = tmp_path / "driver.c"
    src.write_text(DRIVER)
    exe = str(tmp_path / "driver")
    subprocess.run([compiler(), "-O2", "-Wall", "-Werror", "-I", HERE, "-o", exe, str(src),
                    os.path.join(HERE, "ee_float.c"), "-lm"], check=True, timeout=120)
    rows = [m.groups() for m in map(ROW.match, open(VECTORS, encoding="utf-8")) if m]
    lines, expected = [], []
    for op, fs, ft, hw in rows:
        acc, _, fs = fs.strip().replace("ACC ", "").rpartition("; ")
        word = lambda s: s.strip() if s.strip() not in ("", "–") else "0"
        lines.append(f"{op} {word(acc)} {word(fs)} {word(ft)}")
        expected.append(hw)
    assert len(rows) >= 30, "ee-float.md §5 has lost its vector table"
    done = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30)
    got = done.stdout.split()
    assert [(line, g) for line, g, e in zip(lines, got, expected) if g != e] == [] and len(got) == len(rows)
