"""Reports of real stand-in mutants through the harness: the HTML names the
mutant's mismatch with its bits, the printed repro reproduces it alone, and a failing playback
case shrinks to at most 3 steps. Needs the stand-in mutants (`make mutant-elfs`, or the cross
compiler to build them here) and the synthetic corpus."""
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import reports
from tests.reports.fake_run import write_run
from tests.reports.htmltree import parse

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "build" / "synth" / "DATA.BIN"
CATEGORIES = ROOT / "build" / "synth" / "categories.c"
MUTANT_DIR = ROOT / "standin" / "build" / "mutants"
PY = sys.executable

# (mutant, case): the transparency written at scratch +0xD4 instead of +0xD0 (controllers), and
# a loop test against N instead of N-1 (playback: the frame counter runs past the loop).
ALPHA = ("scratch_alpha_offset", "town01.cmp::ANM_sr1fla1_a")
LOOP = ("loop_at_n", "xp_flag.cmp::ANM_xpflnut0")


pytestmark = pytest.mark.skipif(not DATA.exists(), reason="no synthetic corpus: run `make corpus`")


@pytest.fixture(scope="module")
def mutant_elf(tmp_path_factory):
    """The ELF of a named mutant: the built one when it is current with the corpus's category
    tables, else built here into a temp dir (needs gcc-mipsel-linux-gnu), else skip."""
    built = {}
    cross = shutil.which("mipsel-linux-gnu-gcc")

    def get(name):
        if name in built:
            return built[name]
        elf = MUTANT_DIR / f"{name}.elf"
        if elf.exists() and elf.stat().st_mtime >= CATEGORIES.stat().st_mtime:
            built[name] = elf
            return elf
        assert (ROOT / "standin" / "mutants" / f"{name}.patch").exists(), \
            f"mutant {name} is not in standin/mutants/"
        if cross is None:
            pytest.skip(f"{elf} missing or older than {CATEGORIES.name}; no cross compiler to "
                        "build it (run `make -C standin mutants`)")
        out = tmp_path_factory.mktemp("mutants")
        r = subprocess.run(["make", "-s", "-C", "standin", "mutants",
                            f"MUTANTS=mutants/{name}.patch", f"BUILD={out}", f"PY={PY}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        built[name] = out / "mutants" / f"{name}.elf"
        return built[name]
    return get


def harness(*args, timeout=600):
    return subprocess.run([PY, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def alpha_run(mutant_elf, tmp_path_factory):
    """The quick profile over the mutant's case, as `make bulk` runs it, rendered."""
    runs = tmp_path_factory.mktemp("runs")
    elf = mutant_elf(ALPHA[0])
    r = harness("bulk", "--image", str(elf), "--chunks", ALPHA[1], "--profile", "quick",
                "--jobs", "1", "--runs", str(runs), "--fresh")
    assert r.returncode == 1, f"the mutant was not caught:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    run = next(p for p in runs.iterdir() if p.is_dir() and p.name != "latest")
    page = reports.render(run)
    return run, parse(page.read_text())


def test_mutant_mismatch_details_in_the_report(alpha_run):
    run, doc = alpha_run
    rec = json.loads((run / "chunks" / "00000.json").read_text())
    first = next(m for m in rec["mismatches"] if m["field"] == "transparency")
    n = rec["mismatches"].index(first)
    d = doc.by_id(f"m{n}")
    text = d.text()
    for s in (ALPHA[1], "controllers", "transparency", first["expected"], first["got"],
              f"track {first['track']}", f"t={first['time']}"):
        assert str(s) in text, s
    exp, got = int(first["expected"], 16), int(first["got"], 16)
    rows = d.find("div", cls="strip").find_all("div", cls="srow")
    cells = rows[1].find_all("span", cls="b")
    assert "".join(c.text() for c in cells) == f"{got:032b}"
    marked = sum(1 for c in cells if "d" in c.classes)
    assert marked == bin(exp ^ got).count("1")
    repros = [r.find("code").text() for r in d.find_all("div", cls="repro")]
    assert repros[-1] == first["repro"]                     # the original case's repro, last
    if first.get("shrunk"):                                 # the harness shrank it: shown first
        assert repros[0] == first["shrunk"]["repro"]
        det = [c for c in d.find("div", cls="det").children if not isinstance(c, str)]
        assert "shrunk" in det[0].classes
    suites = {s.get("name"): s for s in ET.parse(run / "junit.xml").getroot()}
    assert suites["controllers"].find("testcase/failure") is not None


def test_the_printed_repro_reproduces_the_mismatch_alone(alpha_run):
    """The one-line repro reruns just that case and fails the same way."""
    run, doc = alpha_run
    codes = [r.find("code").text() for r in doc.by_id("m0").find_all("div", cls="repro")]
    code = codes[-1]
    rec = json.loads((run / "chunks" / "00000.json").read_text())["mismatches"][0]
    assert code.startswith(".venv/bin/python -m harness one --case ")
    r = subprocess.run(code, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out[-3000:]
    assert rec["field"] in out and rec["expected"] in out and rec["got"] in out, out[-3000:]
    if len(codes) > 1:                      # the shrunk reproduction reproduces alone as well
        s = subprocess.run(codes[0], shell=True, cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
        assert s.returncode == 1 and rec["field"] in s.stdout, s.stdout + s.stderr


def test_a_mutant_playback_case_shrinks_to_at_most_3_steps(mutant_elf, tmp_path):
    elf = mutant_elf(LOOP[0])
    r = harness("one", "--image", str(elf), "--case", LOOP[1], "--check", "playback",
                "--profile", "quick", "--json")
    assert r.returncode == 1, r.stderr[-3000:]
    rec = json.loads(r.stdout)
    m = rec["mismatches"][0]
    shrunk = m.get("shrunk")
    assert shrunk and 1 <= len(shrunk["steps"]) <= 3, shrunk
    assert len(shrunk["steps"]) < len(m["context"]["step_sizes"])
    # the shrunk repro fails alone, on the same field
    again = subprocess.run(shrunk["repro"], shell=True, cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 1 and m["field"] in again.stdout, again.stdout + again.stderr
    # and the report shows it first, the original below
    run = write_run(tmp_path, [rec], params={"image": {"path": str(elf)}})
    d = parse(reports.render(run).read_text()).by_id("m0")
    det = [c for c in d.find("div", cls="det").children if not isinstance(c, str)]
    assert "shrunk" in det[0].classes
    assert json.dumps(shrunk["steps"], separators=(",", ":")) in det[0].text()
    assert det[0].find("code").text() == shrunk["repro"]


# R·S computed with fs = the scale: playback object-matrix mismatches under the hw multiplier, on a
# chunk the nightly profile plays at a speed where they show (3 of them).
SCALE = ("swap_scale_operands", "dun010.cmp::ANM_dun010004")


def test_a_run_renders_after_its_archive_is_gone(mutant_elf, tmp_path):
    """`make report RUN=...` (python -m reports render) on a machine without the run's DATA.BIN:
    the chunk records carry the reference channels and the object names the report draws
    (interfaces.md §4 `draw`), so the page still has its plots and names."""
    data = tmp_path / "DATA.BIN"
    shutil.copyfile(DATA, data)
    runs = tmp_path / "runs"
    r = harness("bulk", "--image", str(mutant_elf(SCALE[0])), "--data", str(data), "--chunks", SCALE[1],
                "--check", "playback", "--profile", "nightly", "--float-model", "hw", "--jobs", "1",
                "--runs", str(runs), "--fresh")
    assert r.returncode == 1, f"the mutant was not caught:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    run = next(p for p in runs.iterdir() if p.is_dir() and p.name != "latest")
    data.unlink()
    (run / "report.html").unlink()
    rec = json.loads((run / "chunks" / "00000.json").read_text())
    assert json.loads((run / "params.json").read_text())["data"]["path"] == str(data)
    r = subprocess.run([PY, "-m", "reports", "render", str(run)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = parse((run / "report.html").read_text())
    n, m = next((i, m) for i, m in enumerate(rec["mismatches"]) if m["field"].startswith("matrix["))
    svg = doc.by_id(f"m{n}").find("svg")
    assert svg is not None and svg.find("polyline", cls="ref") is not None, "no plot"
    assert "drawn for the report" in svg.text()
    names = rec["draw"]["names"]
    assert isinstance(m["object"], int) and names[str(m["object"])]
    assert doc.by_id(f"m{n}").find("span", cls="mw").text().startswith(
        f"object {m['object']} ({names[str(m['object'])]})")
    assert "not drawn" not in doc.by_id("mismatches").text()
