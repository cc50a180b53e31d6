"""The users' probes as models (docs/spec/fixtures.md §3, docs/truth.md §5): `--model
'morph-probe:CMD'` speaks morph_probe's line protocol.

A probe written in C from the spec, built here with the host's compiler, answers the modify queries
and the synthetic blends: a morph run with it is complete and green, and the ledger says which
kinds it answered; its wrong variant fails with working repros; a run of every check says what it
was not asked; a probe that panics, prints a short line or exits early is the chunk's model error.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from harness import HarnessError
from harness.options import Options
from harness.runners.bulk import command as bulk
from harness.runners.cases import morph_pseudo
from harness.truth import probes, protocol

from .models import CHUNKS, MODELS, ROOT, ledger_complete

SOURCE = os.path.join(MODELS, "morph_probe.c")
EE_FLOAT = os.path.join(ROOT, "docs", "examples", "model-c")     # the C model's ee_float.c, shared


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no host C compiler (cc) to build the C probe")
    d = tmp_path_factory.mktemp("probe")
    out = {}
    for name, extra in (("right", []), ("wrong", ["-DWRONG"])):
        exe = str(d / f"morph_probe_{name}")
        subprocess.run([cc, "-O2", "-Wall", "-Werror", "-I", EE_FLOAT, "-o", exe, SOURCE,
                        os.path.join(EE_FLOAT, "ee_float.c"), "-lm"] + extra, check=True, timeout=120)
        out[name] = "morph-probe:" + shlex.quote(exe)
    return out


def run_dir(tmp_path, name, model, **kw):
    kw.setdefault("n", 12)
    opts = Options(seed=4, profile="nightly", jobs=1, out=str(tmp_path / name), runs=str(tmp_path / "runs"),
                   model=model, **kw)
    status = bulk.run_bulk(opts)
    records = {}
    for f in sorted(os.listdir(tmp_path / name / "chunks")):
        r = json.load(open(tmp_path / name / "chunks" / f, encoding="utf-8"))
        records[r["chunk"]] = r
    return status, records, json.load(open(tmp_path / name / "summary.json", encoding="utf-8"))


def test_a_c_probe_answers_the_modify_queries_and_the_synthetic_blends_a_morph_run_is_complete_and_green(
        built, tmp_path, capsys):
    status, records, summary = run_dir(tmp_path, "right", built["right"], checks=["morph"])
    out = capsys.readouterr().out
    assert status == 0 and summary["status"] == "pass", out[-3000:]
    assert summary["model_kinds"]["answered"]["modify"] > 0 and summary["model_kinds"]["not_asked"] == {}
    assert ledger_complete(summary), (summary["ledger"], summary["left_out"])
    synthetic = [c for c in records if morph_pseudo.is_pseudo(c)]
    assert synthetic and all(records[c]["counters"].get("morph vertices") for c in synthetic)
    assert "model answered: modify" in out and "not asked: none" in out


def test_the_wrong_c_probe_fails_and_each_repro_shows_its_mismatch_again(built, tmp_path, capsys):
    status, records, summary = run_dir(tmp_path, "wrong", built["wrong"], checks=["morph"])
    capsys.readouterr()
    assert status == 1 and summary["status"] == "mismatches"
    m = next(r for r in records.values() if r["mismatches"])["mismatches"][0]
    words = shlex.split(m["repro"])
    assert words[words.index("--model") + 1] == built["wrong"]
    done = subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"| {m['field']}" in done.stdout


def test_a_run_of_every_check_says_what_the_probe_was_not_asked_and_is_not_green(built, tmp_path, capsys):
    status, _, summary = run_dir(tmp_path, "all", built["right"], n=3)
    out = capsys.readouterr().out
    assert status == 1 and summary["status"] == "left out"
    not_asked = summary["model_kinds"]["not_asked"]
    assert {"controller", "playback"} <= set(not_asked) and "modify" not in not_asked
    assert any("the model was not asked" in w and "it answers modify" in w for w in summary["left_out"])
    assert "the model was not asked" in out


def test_check_truth_with_the_c_probe_compares_the_modify_queries_of_a_truth_file(built, tmp_path, capsys):
    from harness.runners.truth_runs import truth_export
    from harness.runners.truth_runs.check_truth import check_truth
    path = str(tmp_path / "truth.jsonl")
    truth_export.export(Options(seed=4, profile="nightly", chunk_ids=list(CHUNKS), checks=["morph"]), path,
                        progress=None)
    status, summary = check_truth(path, model_cmd=built["right"], check="morph")
    out = capsys.readouterr().out
    assert status == 0 and " 0 mismatches" in out and summary["by_check"].get("morph", 0) > 0, out[-2000:]
    # the archive's weights lie in [0, 8) and never saturate, so the wrong probe passes here: its
    # wrapping add is caught by the synthetic blends of a bulk (the test above)
    status, _ = check_truth(path, model_cmd=built["wrong"], check="morph")
    capsys.readouterr()
    assert status == 0


# python one-liners standing for a probe that misbehaves (morph_probe's errors, fixtures.md §3)
PANIC = "import sys; sys.stdin.readline(); sys.stderr.write(\"thread 'main' panicked at bad request\\n\"); sys.exit(101)"
SHORT = "import sys\nfor l in sys.stdin: print('1 2', flush=True)"
EARLY = "import sys; sys.exit(0)"


@pytest.mark.parametrize("program, says", [(PANIC, "exited with status 101"), (SHORT, "answered 2 numbers, not the"),
                                           (EARLY, "exited with status 0")], ids=["panics", "short-line", "exits-early"])
def test_a_probe_that_panics_prints_a_short_line_or_exits_early_is_the_chunks_model_error(
        tmp_path, capsys, program, says):
    model = "morph-probe:" + shlex.join([sys.executable, "-c", program])
    status, records, summary = run_dir(tmp_path, "bad", model, checks=["morph"], n=None,
                                       chunk_ids=[morph_pseudo.ids()[0]])
    capsys.readouterr()
    assert status == 1 and summary["status"] != "pass"
    err = records[morph_pseudo.ids()[0]]["error"]
    assert err["type"] == "ModelError" and "query modify #0" in err["message"] and says in err["message"], err
    if program is PANIC:
        assert "panicked at bad request" in err["message"]


def test_the_probe_request_line_is_the_specs():
    q = {"kind": "modify", "i": 0, "base": [[1, -2, 3]], "base_scale": 0x3f800000,
         "targets": [{"positions": [[4, 5, -32768]], "scale": 0x40000000, "weight": 0x3e800000}]}
    assert probes.morph_request(q) == "3f800000 1 1 1 -2 3 40000000 3e800000 4 5 -32768\n"
    assert protocol.argv_of("morph-probe:./probe --x") == ["./probe", "--x"]


def test_foe_probe_is_refused_until_eediff_asks_the_index_list_alone():
    with pytest.raises(HarnessError, match="no query kind for either alone yet"):
        protocol.argv_of("foe-probe:./foe_probe DISC")
