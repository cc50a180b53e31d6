"""The repository carries the spec its code and tests cite (docs/spec: the contract's text and the
636 hardware vectors), so a clone anywhere reads it from inside itself. docs/spec/SHA256SUMS
lists every file of the copy: the copy must match it everywhere, and where the spec checkout
(../shared/spec) sits beside this one, the copy must be that spec, file for file."""
import hashlib
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPY = os.path.join(ROOT, "docs", "spec")
UPSTREAM = os.path.join(os.path.dirname(ROOT), "shared", "spec")


def listed(manifest=os.path.join(COPY, "SHA256SUMS")):
    out = {}
    for line in open(manifest, encoding="utf-8"):
        digest, name = line.split(None, 1)
        out[os.path.normpath(name.strip())] = digest
    return out


def files_under(top):
    return sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs
                  if f != "SHA256SUMS")


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_the_copy_is_every_file_its_manifest_lists_unchanged():
    want = listed()
    assert sorted(want) == files_under(COPY)
    assert {n: sha256(os.path.join(COPY, n)) for n in want} == want
    assert "vectors/ee-fpu-hw.txt" in want and "checks.md" in want


def test_the_hardware_log_holds_the_636_vectors():
    lines = [l for l in open(os.path.join(COPY, "vectors", "ee-fpu-hw.txt"), encoding="utf-8")
             if l.strip() and not l.startswith("#")]
    assert len(lines) == 636


def test_the_copy_is_the_spec_beside_the_checkout():
    """Where ../shared/spec exists (the workspace), the copy and its manifest are that spec's
    files; a clone elsewhere has checked its copy against the manifest above."""
    if not os.path.isdir(UPSTREAM):
        assert listed(), "no spec beside this clone: the manifest alone vouches for the copy"
        return
    assert files_under(UPSTREAM) == files_under(COPY)
    assert {n: sha256(os.path.join(UPSTREAM, n)) for n in files_under(UPSTREAM)} == listed()

