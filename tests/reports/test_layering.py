"""reports renders a run directory alone: it imports neither the reference model nor the corpus's
archive code. What it draws of the archive (plots, object names) the harness recorded in the chunk
records (harness/compare/draw.py). Of corpus, reports uses the two modules that only word names
and notes: they import nothing, so nothing of the archive comes with them."""
import os

import reports
from tests.reference.test_independence import _imports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# DECISION: the text leaves stay in corpus (the harness and corpus word names and notes with the
# same rules); they read no file and import nothing of ours (checked below).
TEXT_LEAVES = ("corpus.names", "corpus.note_text")


def forbidden_imports(root):
    """'file:line imports module' for each import of reference or of corpus beyond TEXT_LEAVES
    in the package at root."""
    bad, seen = [], 0
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            seen += 1
            for line, mod in _imports(path):
                top = mod.split(".")[0]
                if top == "reference" or (top == "corpus" and mod not in TEXT_LEAVES):
                    bad.append(f"{os.path.relpath(path, root)}:{line} imports {mod}")
    return bad, seen


def test_reports_imports_neither_the_reference_nor_the_archive_code():
    bad, seen = forbidden_imports(os.path.dirname(reports.__file__))
    assert seen >= 15
    assert not bad, "\n".join(bad)


def test_the_text_leaves_reports_uses_import_nothing_of_ours():
    for mod in TEXT_LEAVES:
        path = os.path.join(ROOT, *mod.split(".")) + ".py"
        ours = [m for _, m in _imports(path) if m.split(".")[0] in
                ("corpus", "reference", "eemu_ext", "harness", "reports")]
        assert ours == [], f"{mod} imports {ours}"


def test_the_scan_fails_on_an_import_of_the_model_or_the_archive(tmp_path):
    (tmp_path / "a.py").write_text("from corpus.names import printable\nfrom corpus import open_corpus\n")
    (tmp_path / "b.py").write_text("def f():\n    from reference import Animation\n"
                                   "    import corpus.archive\n")
    bad, seen = forbidden_imports(str(tmp_path))
    assert seen == 2
    assert bad == ["a.py:2 imports corpus", "b.py:2 imports reference", "b.py:3 imports corpus.archive"]


def test_rendering_reads_the_run_directory_once(tmp_path):
    """reports.load reads the run; summary, html, junit and the coverage page render what it
    loaded: the directory may be gone by the time they run."""
    import shutil

    from reports.load import load_run
    from tests.reports.fake_run import mismatch
    from tests.reports.htmltree import parse
    from tests.reports.test_coverage_page import FULL, run_with
    run = run_with(tmp_path / "runs", [FULL])
    rec = run / "chunks" / "00000.json"
    rec.write_text(rec.read_text().replace('"mismatches": []', '"mismatches": [%s], "draw": %s' % (
        __import__("json").dumps(mismatch("a.cmp::ANM_a", "fobj", "pos.x", "0x3f800000", "0x3f800001",
                                          object=3, step=1, time=256)),
        '{"names": {"3": "OBJ_hand"}}')))
    loaded = load_run(run)
    shutil.rmtree(run)
    out = tmp_path / "out"
    page = reports.render_run(loaded, out)
    doc = parse(page.read_text())
    assert "SetAnmCtrlWork" in doc.by_id("codecov").text()                  # coverage_functions.json
    assert doc.by_id("m0").find("span", cls="mw").text() == "object 3 (OBJ_hand) · step 1"
    assert sorted(p.name for p in out.iterdir()) == ["code_coverage.html", "junit.xml", "report.html",
                                                     "summary.json"]
    counted = run_with(tmp_path / "runs2", None, counts=True)               # coverage.json alone
    loaded = load_run(counted)
    shutil.rmtree(counted)
    doc = parse(reports.render_run(loaded, tmp_path / "out2").read_text())
    assert "The run has coverage.json but no coverage_functions.json" in doc.by_id("codecov").text()
