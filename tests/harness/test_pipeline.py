"""End-to-end tests of the harness pipeline on the stand-in and the synthetic corpus: keyword
selection, bulk resume after a kill, FLOAT=trunc, mutants caught, repro and shrinking (issues 7, 8)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, ROOT
from harness.runners.cases import edge_chunks

from .native_programs import compiled

PY = sys.executable
CHECK_MARKERS = ("controllers", "materials", "playback", "notes", "morph", "fobj")


def harness(*args, timeout=600, **kw):
    return subprocess.run([PY, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, **kw)


def test_keyword_selection_picks_only_the_note_checks():
    """`pytest -k notes` selects exactly the differential note checks, in the whole suite."""
    out = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "-k", "notes"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    ids = [line for line in out.stdout.splitlines() if "::" in line and line.startswith("tests/")]
    assert ids, out.stdout + out.stderr
    for node in ids:
        path, name = node.split("::", 1)
        assert path.startswith("tests/differential/") and name.startswith("test_notes"), \
            f"-k notes selected a test that is not a note check: {node}"
    everything = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "tests/differential"],
                                cwd=ROOT, capture_output=True, text=True, timeout=300).stdout
    note_tests = [l for l in everything.splitlines() if "::test_notes" in l]
    assert sorted(note_tests) == sorted(ids), "some note checks were not selected by -k notes"


def _done(run):
    d = os.path.join(run, "chunks")
    return sorted(f for f in os.listdir(d) if f.endswith(".json")) if os.path.isdir(d) else []


def test_bulk_run_killed_mid_way_resumes_without_redoing_finished_chunks(tmp_path):
    """A killed bulk run resumes; finished chunk records are neither redone nor lost."""
    runs = str(tmp_path / "runs")
    args = ["bulk", "--n", "40", "--jobs", "1", "--seed", "11", "--profile", "quick", "--check", "controllers",
            "--runs", runs]
    proc = subprocess.Popen([PY, "-m", "harness", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    run = None
    deadline = time.time() + 300
    try:
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
            latest = os.path.join(runs, "latest")
            if os.path.islink(latest):
                run = os.path.realpath(latest)
                if len(_done(run)) >= 2:
                    break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert run, proc.stderr.read() if proc.stderr else "no run directory"
    first = {f: os.stat(os.path.join(run, "chunks", f)).st_mtime_ns for f in _done(run)}
    assert len(first) >= 1
    total = len(json.load(open(os.path.join(run, "params.json")))["chunks"])
    assert len(first) < total, "the run finished before it could be killed; use more chunks"
    r = harness(*args)            # identical parameters: resumes the incomplete run automatically
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(first)} already done" in r.stderr
    after = {f: os.stat(os.path.join(run, "chunks", f)).st_mtime_ns for f in _done(run)}
    assert len(after) == total
    assert all(after[f] == first[f] for f in first), "a finished chunk was checked again"
    summary = json.load(open(os.path.join(run, "summary.json")))
    assert summary["complete"] and summary["chunks_done"] == total and summary["mismatches"] == 0
    assert summary["counters"]["cases"] > 0


@pytest.mark.parametrize("float_model", ["hw", "trunc"])
def test_bulk_on_the_bundled_defaults_passes_under_both_float_models(tmp_path, float_model):
    """`make bulk` on the stand-in + synthetic corpus passes, FLOAT=trunc included."""
    compiled(DEFAULT_IMAGE, float_model)      # built once: the bulk runs it compiled (native_programs)
    r = harness("bulk", "--n", "3", "--jobs", "1", "--seed", "4", "--profile", "quick",
                "--float-model", float_model, "--runs", str(tmp_path), "--fresh")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "compared, by check:" in r.stdout and "controller cases" in r.stdout


def test_bad_inputs_are_named_exactly(tmp_path):
    """A missing or wrong IMAGE/DATA is named, not a traceback."""
    r = harness("bulk", "--n", "1", "--data", str(tmp_path / "nope.bin"), "--runs", str(tmp_path))
    assert r.returncode == 2 and "nope.bin: no such file" in r.stderr and "Traceback" not in r.stderr
    bogus = tmp_path / "bogus.elf"
    bogus.write_bytes(b"\x7fELF" + bytes(60))
    r = harness("bulk", "--n", "1", "--image", str(bogus), "--data", DEFAULT_DATA, "--runs", str(tmp_path))
    assert r.returncode == 2 and "bogus.elf" in r.stderr and "Traceback" not in r.stderr
    r = harness("one", "--case", "nosuch.cmp::ANM_x")
    assert r.returncode == 2 and "CASE=nosuch.cmp::ANM_x" in r.stderr
    iso = tmp_path / "notadisc.iso"
    iso.write_bytes(bytes(64 * 1024))
    r = harness("bulk", "--n", "1", "--disc", str(iso), "--runs", str(tmp_path))
    assert r.returncode == 2 and "notadisc.iso" in r.stderr and "Traceback" not in r.stderr, r.stderr


def require_built(elf_paths):
    """Mutant ELFs come from `make -C standin mutants` (make test runs it when the cross compiler
    is here). Without them and without a compiler the test skips and says why; with a compiler a
    missing ELF is a failure."""
    missing = [p for p in elf_paths if not os.path.isfile(p)]
    if not missing:
        return
    if shutil.which("mipsel-linux-gnu-gcc") is None:
        pytest.skip(f"{len(missing)} stand-in mutant ELF(s) not built and no gcc-mipsel-linux-gnu "
                    f"to build them (make cross && make -C standin mutants)")
    pytest.fail(f"mutant ELF(s) not built: {missing[:3]} ... run make -C standin mutants")


def mutants():
    from harness.runners.mutants import find_mutants
    try:
        return find_mutants()
    except Exception as exc:            # a malformed patch header fails the test, not collection
        return [pytest.param(None, id=f"bad-patch: {exc}")]


# DECISION: the mutants whose cases run long enough in the Python engine (under the tiering
# threshold) that compiling their program at once costs less: blend_no_saturation 37.5 -> 19.0 user
# CPU-s for the test's process, gcc included. A short one loses by the compile (a note mutant in
# test_truth.py: 11.2 -> 16.6), so the others keep the tiered default. The engine changes no word.
COMPILED_AT_ONCE = {"blend_no_saturation"}


@pytest.mark.parametrize("mutant", mutants() or [pytest.param(None, id="no-mutants")],
                         ids=lambda m: getattr(m, "name", str(m)))
def test_every_mutant_is_caught_by_the_check_it_names(mutant, monkeypatch):
    """The quick profile on the mutant's cases catches it by its check (interfaces.md §5)."""
    assert mutant is not None, "standin/mutants/*.patch: none found or a header is malformed"
    require_built([mutant.elf])
    if mutant.name in COMPILED_AT_ONCE:
        monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    from harness.runners.mutants import run_mutant
    from harness.options import Options
    caught, results = run_mutant(mutant, Options(image=mutant.elf))
    seen = sorted({m["check"] for r in results for m in r["mismatches"]})
    errors = [r["error"] for r in results if r.get("error")]
    assert caught, f"{mutant.name} (# Catches: {mutant.catches}) not caught; checks that saw it: {seen}; errors {errors}"


def _first_mutant_for(check):
    from harness.runners.mutants import find_mutants
    for m in find_mutants():
        if m.catches == check and os.path.isfile(m.elf):
            return m
    return None


def test_the_printed_repro_reproduces_a_mutant_mismatch_alone():
    """The repro command of a mutant's mismatch, run alone, fails the same way."""
    from harness.runners.mutants import find_mutants, run_mutant
    from harness.options import Options
    require_built([m.elf for m in find_mutants()])
    muts = [m for m in find_mutants() if os.path.isfile(m.elf)]
    assert muts, "no built mutant (make -C standin mutants)"
    mut = muts[0]
    caught, results = run_mutant(mut, Options(image=mut.elf))
    assert caught
    m = next(x for r in results for x in r["mismatches"] if x["check"] == mut.catches)
    assert m["repro"].startswith(".venv/bin/python -m harness one --case ") and f"--image {mut.elf}" in m["repro"]
    r = subprocess.run(m["repro"].replace(".venv/bin/python", PY, 1) + " --no-shrink", shell=True, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert m["field"] in r.stdout


def test_a_mutant_playback_failure_shrinks_to_at_most_three_steps():
    """Shrinking reduces a mutant's failing playback case to <= 3 steps."""
    from harness.driver.game import Game
    from harness.runners.mutants import run_mutant
    from harness.options import Options
    from harness.runners.mutants import find_mutants
    from harness.shrinking import shrink_mismatch
    require_built([m.elf for m in find_mutants() if m.catches == "playback"])
    mut = _first_mutant_for("playback")
    assert mut is not None, "no built mutant with '# Catches: playback'"
    opts = Options(image=mut.elf)
    caught, results = run_mutant(mut, opts)
    assert caught
    m = next(x for r in results for x in r["mismatches"] if x["check"] == "playback")
    corpus = opts.open_corpus()
    ctx = opts.context(m["chunk"])
    ctx.image = mut.elf
    shrunk = shrink_mismatch(Game(mut.elf, opts.float_model), corpus.chunk(m["chunk"]), ctx, m)
    steps = shrunk["steps"] if shrunk else m["context"]["step_sizes"]
    assert len(steps) <= 3, f"shrunk to {steps} from {len(m['context']['step_sizes'])} steps"
    if shrunk:
        r = subprocess.run(shrunk["repro"].replace(".venv/bin/python", PY), shell=True, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 1 and m["field"] in r.stdout, r.stdout + r.stderr


def test_a_killed_worker_costs_only_its_chunk_in_flight(tmp_path):
    """A worker killed mid-run (out of memory, a signal) is replaced; the run still completes."""
    runs = str(tmp_path / "runs")
    # enough work that the poll below sees a record while chunks are still in flight
    args = ["bulk", "--n", "30", "--jobs", "2", "--seed", "12", "--profile", "quick", "--check", "playback",
            "--runs", runs]
    proc = subprocess.Popen([PY, "-m", "harness", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    killed = None
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and killed is None:
        time.sleep(0.2)
        latest = os.path.join(runs, "latest")
        if os.path.islink(latest) and _done(os.path.realpath(latest)):
            kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            if kids:
                killed = int(kids[0])
                os.kill(killed, signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert killed, "the run finished before a worker could be killed"
    assert proc.returncode == 0, out[-2000:] + err[-2000:]
    assert "a worker died" in err
    summary = json.load(open(os.path.join(os.path.realpath(os.path.join(runs, "latest")), "summary.json")))
    assert summary["complete"] and summary["errors"] == 0
    assert summary["chunks_done"] == 30 + len(edge_chunks.ids(["playback"]))     # the edge chunks join
