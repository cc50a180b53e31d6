"""Every file the READMEs and docs/interfaces.md point to is in the repository: a clone anywhere
can follow them (the spec is its copy in docs/spec, never ../shared)."""
import glob
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "harness/README.md", "reports/README.md", "standin/README.md", "docs/interfaces.md"]
EXTENSIONS = (".md", ".py", ".c", ".h", ".ld", ".txt", ".toml", ".patch", ".elf")
# files a run or a build writes (not in the repository by design; categories.c is generated
# with the synthetic corpus)
WRITTEN = ("build/", ".venv", "chunks/", "coverage/", "standin/build")


def tracked():
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    return set(out)


def pointers(text):
    """The backticked words that name a file or directory of ours."""
    for word in re.findall(r"`([^`\s]+)`", text):
        if "<" in word or "(" in word or "=" in word or word.startswith(("/", "-", "$")):
            continue
        if word.startswith("../") or word.endswith("/") or word.endswith(EXTENSIONS):
            yield word


def unresolved(doc, files):
    here = os.path.dirname(doc)
    bad = []
    for word in pointers(open(os.path.join(ROOT, doc), encoding="utf-8").read()):
        if word.startswith(WRITTEN) or word in (".eediff.mulsites", "categories.c"):
            continue
        if word.startswith("../"):
            bad.append(f"{doc}: `{word}` is outside the repository")
            continue
        path = word.rstrip("/")
        candidates = [os.path.normpath(os.path.join(here, path)), path, os.path.join("docs", "spec", path)]
        if any(glob.glob(os.path.join(ROOT, c)) for c in candidates):
            continue
        if "/" not in path and any(f.endswith("/" + path) or f == path or f"/{path}/" in f"/{f}" for f in files):
            continue                       # a module named by its file name in its package's prose
        bad.append(f"{doc}: `{word}` is not in the repository")
    return bad


def test_every_file_the_docs_point_to_is_in_the_repository():
    files = tracked()
    bad = [b for doc in DOCS for b in unresolved(doc, files)]
    assert not bad, "\n".join(bad)


def test_a_pointer_outside_the_repository_is_caught(tmp_path, monkeypatch):
    (tmp_path / "x.md").write_text("See `../shared/spec/checks.md`, `docs/nowhere.md` and `docs/spec/checks.md`.\n")
    import sys
    monkeypatch.setattr(sys.modules[__name__], "ROOT", str(tmp_path))
    os.makedirs(tmp_path / "docs" / "spec")
    (tmp_path / "docs" / "spec" / "checks.md").write_text("")
    assert unresolved("x.md", set()) == ["x.md: `../shared/spec/checks.md` is outside the repository",
                                          "x.md: `docs/nowhere.md` is not in the repository"]
