"""Coverage of the game's code over a bulk run: coverage.json, coverage_functions.json
(interfaces.md §4) and `python -m harness coverage RUN`; a branch direction no chunk took becomes
covered when a chunk that takes it is added to the run."""
import json
import os
import re

from harness.__main__ import main
from harness.driver.game import FORWARD
from harness.runners.bulk import command as bulk, codecov

from .test_bulk import opts_for

ONCE, LOOP = "mini.cmp::ANM_once", "mini.cmp::ANM_loop"     # tests/harness/minicorpus.py


def run_of(tmp_path, name, chunks):
    out = tmp_path / name
    assert bulk.run_bulk(opts_for(tmp_path, chunk_ids=list(chunks), out=str(out)), ["test"]) == 0
    return out


def functions(run):
    return {f["name"]: f for f in json.loads((run / codecov.FUNCTIONS).read_text())["functions"]}


def never_taken(f):
    """The (address, direction) pairs of f's executed conditional branches that one way never went."""
    out = set()
    for pc, n, _text, t, nt in f["lines"]:
        if t is not None and n:
            out |= {(pc, w) for w, c in (("taken", t), ("not taken", nt)) if not c}
    return out


def test_a_run_writes_its_summed_counts_and_the_per_function_figures_the_coverage_command_prints(
        tmp_path, capsys):
    run = run_of(tmp_path, "run", [ONCE, LOOP])
    cov = codecov.load(run / codecov.FILE)
    parts = sorted(os.listdir(run / codecov.PARTS))
    assert parts and sum((codecov.load(run / codecov.PARTS / p) for p in parts),
                         start=type(cov)()) == cov
    data = json.loads((run / codecov.FUNCTIONS).read_text())
    assert data["format"] == codecov.FUNCTIONS_FORMAT
    funcs = codecov.report(codecov.run_image(str(run)), cov)
    assert [f["name"] for f in data["functions"]] == [f.name for f in funcs]
    for d, f in zip(data["functions"], funcs):
        assert (d["insns_covered"], d["insns_total"], d["directions_covered"], d["directions_total"]) == \
            (f.insns_covered, f.insns_total, f.directions_covered, f.directions_total), f.name
        # each line as data: its count is the run's; '!!' exactly where the count is 0
        assert len(d["lines"]) == len(f.lines) - 1
        for (pc, n, text, t, nt), shown in zip(d["lines"], f.lines[1:]):
            assert n == cov.insns.get(int(pc, 16), 0) and shown.startswith("!!" if not n else "  ")
            assert text in shown and (t is None) == ("[taken" not in shown)
    ic, it, dc, dt = codecov.totals(funcs)
    assert 0 < ic < it and 0 < dc < dt
    served = [f.name for f in funcs if f.served]
    assert "ccMalloc__FUi" in served and "__nw__FUi" in served and "NoteProcess__5ccAnmFv" not in served
    assert data["totals"] == {"functions": len(funcs) - len(served), "served": len(served), "insns_covered": ic,
                              "insns_total": it, "directions_covered": dc, "directions_total": dt}
    capsys.readouterr()
    assert main(["coverage", str(run)]) == 0
    out = capsys.readouterr().out
    assert (f"total: instructions {ic}/{it} ({100 * ic / it:.1f}%), branch directions {dc}/{dt} "
            f"({100 * dc / dt:.1f}%) over {len(funcs) - len(served)} functions; {len(served)} served by the "
            f"harness, not counted") in out
    assert re.search(r"^ccMalloc +served by the harness \(a hooked stub; never run\) +ccMalloc__FUi$", out, re.M), out
    listed = re.findall(r"^(\S+) ", out, re.M)[1:-1]
    assert listed == sorted(listed, key=str.lower), listed
    # the report links the page rendered from it
    assert 'href="code_coverage.html' in (run / "report.html").read_text()
    assert (run / "code_coverage.html").stat().st_size > 50_000


def test_a_never_taken_direction_is_covered_once_a_chunk_that_takes_it_is_in_the_run(tmp_path, capsys):
    """ANM_once plays once: a branch of _AnimateForward that a looping animation takes is never
    taken; with ANM_loop in the run it is."""
    once = run_of(tmp_path, "once", [ONCE])
    both = run_of(tmp_path, "both", [ONCE, LOOP])
    fwd_once, fwd_both = functions(once)[FORWARD], functions(both)[FORWARD]
    gained = never_taken(fwd_once) - never_taken(fwd_both)
    assert gained, "adding the looping chunk covers a direction of _AnimateForward"
    assert fwd_both["directions_covered"] > fwd_once["directions_covered"]
    pc, way = sorted(gained)[0]
    a = int(pc, 16)
    c_once, c_both = codecov.load(once / codecov.FILE), codecov.load(both / codecov.FILE)
    i = 0 if way == "taken" else 1
    assert c_once.insns[a] > 0 and c_once.directions(a)[i] == 0 and c_both.directions(a)[i] > 0
    # the coverage command says so, the short name standing for the symbol
    capsys.readouterr()
    shown = []
    for run in (once, both):
        assert main(["coverage", str(run), "--function", "_AnimateForward"]) == 0
        shown.append(next(ln for ln in capsys.readouterr().out.splitlines() if f" {a:08x} " in ln))
    word = "never taken" if way == "taken" else "never not-taken"
    assert word in shown[0] and word not in shown[1]


def test_without_counting_a_run_has_no_coverage_and_the_command_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EEDIFF_CODE_COVERAGE", "0")
    run = run_of(tmp_path, "off", [ONCE])
    assert not (run / codecov.FILE).exists() and not (run / codecov.FUNCTIONS).exists()
    capsys.readouterr()
    assert main(["coverage", str(run)]) == 2
    assert "no coverage.json" in capsys.readouterr().err


def test_a_function_the_executable_does_not_have_is_a_one_line_error(tmp_path, capsys):
    run = run_of(tmp_path, "run", [ONCE])
    capsys.readouterr()
    assert main(["coverage", str(run), "--function", "Nope"]) == 2
    err = capsys.readouterr().err
    line, = err.strip().splitlines()
    assert line.startswith("harness: --function Nope:") and "standin.elf" in line and "'Nope'" in line
