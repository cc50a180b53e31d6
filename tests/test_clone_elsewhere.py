"""A clone outside the workspace runs the test suite with no skip for missing files: every file a
test reads (the spec's text, the 636 hardware vectors, the stand-in) is in the repository.

The clone is the checkout's files (tracked, and new ones not ignored) committed to a new git
repository in a temporary directory that has no ../shared beside it. What `make corpus` and `make mutant-elfs` would build
there from the same sources (build/synth, standin/build) and the content-addressed compile caches
are linked in, so the clone need not spend minutes rebuilding them.
DECISION: a skip is accepted in the clone only for what a machine may lack (a compiler, the cross
compiler, an optional module) or for --slow; any other skip is a file the clone did not have.

The default run checks the tests that read the repository's data files; with --slow the whole
suite runs in the clone.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what `make corpus` / `make mutant-elfs` build, and the compile caches (keyed by content)
BUILT = (".venv", "build/synth", "build/native", "build/reference", "standin/build")
MACHINE_MAY_LACK = re.compile(r"compiler|not installed|gcc-mipsel|mipsel-linux-gnu|could not import|--slow|"
                              r"no module named", re.I)
DATA_READERS = ["tests/test_spec_copy.py", "tests/test_architecture.py", "tests/reference/test_eefloat_vectors.py",
                "tests/machine/test_cop1_vectors.py", "tests/test_readme_links.py"]


def clone(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    git = ["git", "-c", "user.name=clone", "-c", "user.email=clone@localhost", "-c", "commit.gpgsign=false"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        subprocess.run(git + cmd, cwd=dest, check=True, capture_output=True)
    for name in BUILT:
        if (ROOT / name).exists():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(ROOT / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory):
    dest = clone(tmp_path_factory.mktemp("elsewhere") / "eediff")
    # elsewhere: no ../shared beside it, and neither inside this checkout nor beside it (a checkout
    # that is itself in /tmp, as a CI clone from mktemp is, still has its tests' clone elsewhere)
    assert not (dest.parent / "shared").exists() and ROOT not in dest.parents and dest.parent != ROOT.parent
    return dest


def run_in(dest: Path, *args, timeout=600):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "EEDIFF_")) or k == "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    return subprocess.run([sys.executable, *args], cwd=dest, capture_output=True, text=True, timeout=timeout,
                          env=env)


def skips(output: str) -> list[str]:
    return re.findall(r"^SKIPPED \[\d+\] (.*)$", output, re.M)


def test_the_clone_imports_its_own_code(elsewhere):
    r = run_in(elsewhere, "-c", "import harness, reference, eediff_pytest; "
               "print(harness.__file__); print(reference.__file__); print(eediff_pytest.__file__)")
    assert r.returncode == 0, r.stderr
    assert all(line.startswith(str(elsewhere)) for line in r.stdout.split()), r.stdout


def test_the_tests_that_read_data_files_run_in_the_clone_with_no_skip(elsewhere):
    r = run_in(elsewhere, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "0", *DATA_READERS)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert not skips(r.stdout), skips(r.stdout)
    assert re.search(r"\b\d{2,} passed\b", r.stdout), r.stdout[-500:]


@pytest.mark.slow
def test_the_whole_suite_runs_in_the_clone_with_no_skip_for_missing_files(elsewhere):
    r = run_in(elsewhere, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "2",
               "--deselect", "tests/test_clone_elsewhere.py", timeout=7200)
    missing = [s for s in skips(r.stdout) if not MACHINE_MAY_LACK.search(s)]
    assert not missing, "skipped in a clone outside the workspace:\n" + "\n".join(missing)
    assert r.returncode == 0, r.stdout[-5000:]
