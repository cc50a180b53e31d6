"""The project's architecture as harness/README.md draws it: which package may import which, and
every contract a module cites exists (docs/interfaces.md, or the repository's copy of the spec, docs/spec)."""
import os
import re

from tests.reference.test_independence import _imports

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "docs", "spec")
DOCS = os.path.join(ROOT, "docs")

# harness/README.md "Layers": each package may import itself and the packages listed for it.
# DECISION: reference sits on corpus (it parses chunks with corpus.anime and corpus.records),
# never on the machine, the harness or the reports; reports reads runs and may use the model
# and the corpus to draw plots, never the harness that wrote the run.
MAY_IMPORT = {
    "eemu_ext": set(),
    "corpus": set(),
    "reference": {"corpus"},
    "reports": {"eemu_ext", "corpus", "reference"},
    "harness": {"eemu_ext", "corpus", "reference", "reports"},
}
OURS = set(MAY_IMPORT) | {"standin", "tests", "benchmarks"}      # no package imports the benchmarks


def layer_violations(root=ROOT):
    bad, seen = [], 0
    for pkg, allowed in MAY_IMPORT.items():
        for dirpath, _, files in os.walk(os.path.join(root, pkg)):
            for f in sorted(files):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(dirpath, f)
                seen += 1
                for line, mod in _imports(path):
                    top = mod.split(".")[0]
                    if top in OURS and top != pkg and top not in allowed:
                        bad.append(f"{os.path.relpath(path, root)}:{line} imports {mod} ({pkg} may import "
                                   f"{', '.join(sorted(allowed)) or 'nothing of ours'})")
    return bad, seen


def test_each_package_imports_only_the_layers_below_it():
    bad, seen = layer_violations()
    assert seen >= 100
    assert not bad, "\n".join(bad)


def test_the_layering_scan_fails_on_an_upward_import(tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "x.py").write_text("def f():\n    from harness.runners import bulk\n")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "y.py").write_text("import reference.animation\nimport os\n")
    bad, _ = layer_violations(str(tmp_path))
    assert [b.split(" (")[0] for b in bad] == ["corpus/y.py:1 imports reference.animation",
                                               "reports/x.py:2 imports harness.runners"]


# -- citations -------------------------------------------------------------------------------------
CITATION = re.compile(r"\b([a-z][\w-]*\.md) §(\d+(?:\.\d+)*)")


def sections(path):
    """Section number -> the lines under it: '## 4. Playback' / '### 4.1 ...' give 4 and 4.1."""
    out, current = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+§?(\d+(?:\.\d+)*)\.?\s", line)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is not None:
            current.append(line)
    return out


def resolves(secs, number):
    """A cited number is a heading, or a heading followed by the numbers of its list items
    (checks.md §7.3: item 3 of section 7; animation-semantics.md §4.3.2: item 2 of step 3 of §4)."""
    parts = number.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in secs:
            body = secs[head]
            return all(any(re.match(rf"\s*{item}\.\s", line) for line in body) for item in parts[k:])
    return False


def citation_problems(root=ROOT, spec=SPEC, docs=DOCS):
    homes = {}
    for d in (spec, docs):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".md"):
                    homes[f] = os.path.join(d, f)
    known, bad, seen = {}, [], 0
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("build", "node_modules")]
        for f in sorted(files):
            if not f.endswith((".py", ".md")):
                continue
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                for name, sec in CITATION.findall(line):
                    if name == "README.md" or name.startswith(("worklog", "animation-playback")):
                        continue      # the spec index and the original write-ups are cited by file
                    seen += 1
                    where = f"{os.path.relpath(path, root)}:{n}"
                    if name not in homes:
                        bad.append(f"{where} cites {name} §{sec}: no such file in docs/ or docs/spec")
                        continue
                    if not resolves(known.setdefault(name, sections(homes[name])), sec):
                        bad.append(f"{where} cites {name} §{sec}: {name} has no section {sec}")
    return bad, seen


def test_every_cited_contract_and_section_exists():
    bad, seen = citation_problems()
    assert seen >= 100
    assert not bad, "\n".join(bad)


def test_the_citation_scan_fails_on_a_missing_file_or_section(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "interfaces.md").write_text("# I\n\n## 1. Machine\n\n### 1.2 Memory\n\n1. load\n2. run\n")
    cite = lambda name, sec: f"{name} \N{SECTION SIGN}{sec}"      # not written out: this file is scanned too
    (tmp_path / "a.py").write_text(", ".join(cite(*c) for c in (("interfaces.md", "1"), ("interfaces.md", "1.2.2"),
                                                                ("interfaces.md", "1.2.3"), ("interfaces.md", "4"),
                                                                ("nowhere.md", "2"))) + "\n")
    bad, seen = citation_problems(str(tmp_path), spec=str(tmp_path / "nospec"), docs=str(docs))
    assert seen == 5
    assert bad == [f"a.py:1 cites {cite('interfaces.md', '1.2.3')}: interfaces.md has no section 1.2.3",
                   f"a.py:1 cites {cite('interfaces.md', '4')}: interfaces.md has no section 4",
                   f"a.py:1 cites {cite('nowhere.md', '2')}: no such file in docs/ or docs/spec"]
