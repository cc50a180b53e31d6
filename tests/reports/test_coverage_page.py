"""The code coverage of a run in the report: the harness writes coverage_functions.json
into the run directory (interfaces.md §4); reports renders a Code coverage section into
report.html (totals, a row per function) and code_coverage.html, each function's annotated
disassembly collapsed, never-executed instructions marked "!!" and never-taken directions named."""
import json

import pytest

import reports
from reports import ReportError, code_coverage

from .fake_run import write_run
from .htmltree import parse


def line(pc, n, text, t=None, nt=None):
    return [f"0x{pc:08x}", n, text, t, nt]


def functions_file(funcs):
    return {"format": code_coverage.FORMAT, "image": "standin/standin.elf",
            "totals": {}, "functions": funcs}


def function(name, start, lines):
    cond = [ln for ln in lines if ln[3] is not None]
    return {"name": name, "start": f"0x{start:08x}", "end": f"0x{start + 4 * len(lines):08x}",
            "insns_covered": sum(1 for ln in lines if ln[1]), "insns_total": len(lines),
            "directions_covered": sum((ln[3] > 0) + (ln[4] > 0) for ln in cond),
            "directions_total": 2 * len(cond), "lines": lines}


FULL = function("SetAnmCtrlWork", 0x100100, [line(0x100100, 7, "addiu sp, sp, -32"),
                                             line(0x100104, 7, "bne a0, zero, 0x100100", 3, 4),
                                             line(0x100108, 7, "nop")])
PARTIAL = function("NoteProcess", 0x100200, [line(0x100200, 5, "lw v0, 0(a0)"),
                                            line(0x100204, 5, "beq v0, zero, 0x10020c", 0, 5),
                                            line(0x100208, 5, "nop"),
                                            line(0x10020c, 0, "jr ra")])


def run_with(tmp_path, funcs, counts=True):
    run = write_run(tmp_path, [{"chunk": "a.cmp::ANM_a", "checks": ["controllers"]}])
    if funcs is not None:
        (run / code_coverage.FILE).write_text(json.dumps(functions_file(funcs)))
    if counts:
        (run / code_coverage.COUNTS).write_text(json.dumps({"format": "eemu-code-coverage/1"}))
    return run


def test_the_report_has_a_code_coverage_section_with_the_totals_and_a_row_per_function(tmp_path):
    run = run_with(tmp_path, [FULL, PARTIAL])
    doc = parse(reports.render(run).read_text())
    sec = doc.find_all("section", id="codecov")[0]
    text = " ".join(sec.text().split())
    # instructions 3/3 + 3/4, directions 2/2 + 1/2
    assert "2 functions: instructions 6/7 (85.7%), branch directions 3/4 (75.0%)" in text
    rows = [" ".join(td.text() for td in r.find_all("td")) for r in sec.find_all("tr")[1:]]
    assert rows == ["SetAnmCtrlWork 3/3 100.0% 2/2 (100.0%)", "NoteProcess 3/4 75.0% 1/2 (50.0%)"]
    assert [r.classes for r in sec.find_all("tr")[1:]] == [{"ok"}, {"warn"}]
    links = [a.attrs["href"] for a in sec.find_all("a")]
    assert "code_coverage.html#f0" in links and "code_coverage.html#f1" in links
    assert any(a.attrs.get("href") == "#codecov" for a in doc.find_all("a"))


def test_the_coverage_page_marks_never_executed_instructions_and_never_taken_directions(tmp_path):
    run = run_with(tmp_path, [FULL, PARTIAL])
    reports.render(run)
    doc = parse((run / code_coverage.PAGE).read_text())
    blocks = doc.find_all("details")
    assert [b.attrs.get("id") for b in blocks] == ["f0", "f1"]
    assert all("open" not in b.attrs for b in blocks), "each function's disassembly starts collapsed"
    assert " ".join(blocks[1].find_all("summary")[0].text().split()) == \
        "NoteProcess: instructions 3/4 (75.0%), branch directions 1/2"
    miss = [s.text() for s in doc.find_all("span", cls="miss") if s.parent.tag == "pre"]
    assert miss == ["!! 0010020c        0 jr ra"]
    half = [s.text() for s in doc.find_all("span", cls="half") if s.parent.tag == "pre"]
    assert half == ["   00100204        5 beq v0, zero, 0x10020c   [taken 0, not taken 5; never taken]"]
    # a fully covered function has no mark; its branch shows both counts
    full = blocks[0].find_all("pre")[0]
    assert not full.find_all("span") and "[taken 3, not taken 4]" in full.text()


def test_a_run_without_code_coverage_says_so_and_writes_no_page(tmp_path):
    run = run_with(tmp_path, None, counts=False)
    doc = parse(reports.render(run).read_text())
    assert "counted no code coverage" in doc.find_all("section", id="codecov")[0].text()
    assert not (run / code_coverage.PAGE).exists()
    run2 = run_with(tmp_path / "b", None, counts=True)
    text = parse(reports.render(run2).read_text()).find_all("section", id="codecov")[0].text()
    assert "has coverage.json but no coverage_functions.json" in text


def test_names_from_the_executable_are_escaped(tmp_path):
    evil = function("<script>alert(1)</script>", 0x100300, [line(0x100300, 0, "<b>x</b>")])
    run = run_with(tmp_path, [evil])
    reports.render(run)
    for page in (run / "report.html", run / code_coverage.PAGE):
        html = page.read_text()
        assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    assert "<b>x</b>" not in (run / code_coverage.PAGE).read_text()


@pytest.mark.parametrize("breakage, named", [
    (lambda d: d.update(format="other/1"), "member 'format'"),
    (lambda d: d["functions"][1].update(insns_total=-1), "functions[1] (NoteProcess): member 'insns_total'"),
    (lambda d: d["functions"][1]["lines"][2].pop(), "functions[1] (NoteProcess): lines[2]"),
])
def test_a_broken_coverage_file_is_an_error_naming_the_file_and_member(tmp_path, breakage, named):
    run = run_with(tmp_path, [FULL, PARTIAL])
    d = json.loads((run / code_coverage.FILE).read_text())
    breakage(d)
    (run / code_coverage.FILE).write_text(json.dumps(d))
    with pytest.raises(ReportError) as err:
        reports.render(run)
    assert code_coverage.FILE in str(err.value) and named in str(err.value)


def test_the_page_of_four_thousand_instructions_stays_small(tmp_path):
    """About the game's reached code (57 functions, 3,916 instructions on the stand-in): the
    page is the disassembly's text and little markup."""
    funcs = [function(f"f{k}", 0x100000 + 0x400 * k,
                      [line(0x100000 + 0x400 * k + 4 * i, (i * 7919 + k) % 3, "addiu a0, a0, 1" if i % 5
                            else "bne a0, zero, 0x00100000", *(((i % 3), (i % 2)) if not i % 5 else (None, None)))
                       for i in range(70)]) for k in range(57)]
    run = run_with(tmp_path, funcs)
    reports.render(run)
    page = (run / code_coverage.PAGE).stat().st_size
    report = (run / "report.html").stat().st_size
    assert page < 300_000, f"code_coverage.html is {page:,} bytes"
    assert report < 80_000, f"report.html is {report:,} bytes"
