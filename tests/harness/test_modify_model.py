"""A `modify` model written from docs/truth.md §3.1 alone (tests/harness/truth_models/modify_model.py,
nothing of eediff imported) answers the nightly's morph queries with no mismatch: the real models'
blends of a seeded sample and the blends built by code (checks.md §5.2: rescaled targets under the
hw divider and multiplier, weights above 1, saturation, wrapping, the -0 weight). A wrong answer
fails the run, so the pass is the model's; its mismatches carry the vertex's inputs.

The full nightly's figure: make bulk N=4091 CHECK=morph MODEL='python3 tests/harness/truth_models/modify_model.py'
"""
import json
import os

from harness.options import Options
from harness.runners.bulk import command as bulk

from .models import MODIFY_MODEL


def morph_run(tmp_path, name, model):
    opts = Options(seed=4, profile="nightly", n=20, jobs=1, checks=["morph"], model=model,
                   out=str(tmp_path / name), runs=str(tmp_path / "runs"))
    status = bulk.run_bulk(opts)
    summary = json.load(open(tmp_path / name / "summary.json", encoding="utf-8"))
    records = [json.load(open(tmp_path / name / "chunks" / f, encoding="utf-8"))
               for f in os.listdir(tmp_path / name / "chunks")]
    return status, summary, records


def test_a_modify_model_written_from_the_doc_alone_blends_every_nightly_morph_query_exactly(tmp_path):
    status, summary, records = morph_run(tmp_path, "doc", MODIFY_MODEL)
    assert status == 0 and summary["status"] == "pass"
    built = [r for r in records if r["chunk"].startswith("synthetic::")]
    assert len(records) - len(built) == 20 and any(r["chunk"].startswith("synthetic::morph/") for r in built)
    archive = [r["ledger"]["morph vertices"] for r in records if r not in built]
    assert sum(c for c, _ in archive) > 50_000 and all(c == p for c, p in archive)
    assert all(r["counters_by_check"]["morph"]["morph vertices"] > 0 for r in built)
    assert all(not r["mismatches"] and r["error"] is None for r in records)


def test_the_same_model_one_vertex_off_fails_the_run(tmp_path):
    status, summary, records = morph_run(tmp_path, "wrong", MODIFY_MODEL + " --wrong")
    assert status == 1 and summary["status"] != "pass"
    failing = [r for r in records if r["mismatches"]]
    assert failing and all(m["check"] == "morph" for r in failing for m in r["mismatches"])


def test_a_morph_mismatch_carries_the_vertex_inputs_base_targets_scales_and_weights(tmp_path):
    _, _, records = morph_run(tmp_path, "inputs", MODIFY_MODEL + " --wrong")
    m = next(m for r in records if not r["chunk"].startswith("synthetic::") for m in r["mismatches"])
    c = m["context"]
    assert m["field"] == "vertex[0].x" and c["vertex"] == 0 and len(c["base"]) == 3
    assert c["base_scale"].startswith("0x") and c["targets"]
    assert all(len(t["position"]) == 3 and t["scale"].startswith("0x") and t["weight"].startswith("0x")
               for t in c["targets"])


def test_a_model_run_leaves_build_runs_latest_on_the_last_run_of_the_reference(tmp_path):
    """README: latest is the newest run of the built-in reference; an experiment with MODEL= is
    reached by its own directory and never becomes latest (a toy model run once read as it)."""
    opts = Options(seed=4, profile="nightly", n=2, jobs=1, checks=["morph"], runs=str(tmp_path / "runs"))
    assert bulk.run_bulk(opts) == 0
    reference_run = os.path.realpath(tmp_path / "runs" / "latest")
    opts = Options(seed=4, profile="nightly", n=2, jobs=1, checks=["morph"], runs=str(tmp_path / "runs"),
                   model=MODIFY_MODEL, fresh=True)
    assert bulk.run_bulk(opts) == 0
    runs = [d for d in os.listdir(tmp_path / "runs") if d != "latest"]
    assert len(runs) == 2 and os.path.realpath(tmp_path / "runs" / "latest") == reference_run
