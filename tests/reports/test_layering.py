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
