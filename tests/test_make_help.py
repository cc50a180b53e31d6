"""`make help` lists every target and variable of the Makefile, and
`make bulk CHECK=` is passed on, not ignored."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def makefile():
    return open(os.path.join(ROOT, "Makefile")).read()


def test_make_help_lists_every_phony_target_and_every_variable():
    text = makefile()
    targets = re.search(r"^\.PHONY:(.*)$", text, re.M)[1].split()
    variables = re.findall(r"^([A-Z][A-Z0-9_]*)\s*\?=", text, re.M)
    out = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    missing = [t for t in targets if not re.search(rf"make {re.escape(t)}\b", out.stdout)]
    missing += [v for v in variables if not re.search(rf"^\s+{v}=", out.stdout, re.M)]
    assert len(targets) > 10 and len(variables) > 10 and not missing, f"make help omits {missing}"


def test_make_bulk_passes_check_on():
    out = subprocess.run(["make", "-n", "bulk", "CHECK=notes"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env={**os.environ, "MK_CHECK": ""})
    recipe = [l for l in out.stdout.splitlines() if "-m harness bulk" in l]
    assert recipe and '--check "$MK_CHECK"' in recipe[0], out.stdout
    done = subprocess.run(["make", "-s", "bulk", "CHECK=nonsense", "N=1"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "CHECK: invalid choice: 'nonsense'" in done.stderr, done.stderr


def test_the_package_is_built_once_and_quietly_the_extras_add_their_requirements_alone():
    """First-run noise: one editable install, with setuptools' "editable installation" box
    silenced; the lint and cluster extras install their own requirements without building the
    package again (each build printed the box)."""
    installs = [x for x in makefile().splitlines() if "pip install" in x and "--upgrade pip" not in x]
    editable = [x for x in installs if " -e " in x]
    assert len(installs) == 3 and len(editable) == 1, installs
    assert "PYTHONWARNINGS='ignore:Editable installation'" in editable[0]
    out = subprocess.run(["make", "-n", "-W", ".venv/.eediff-installed", ".venv/.eediff-cluster"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    line = next(x for x in out.stdout.splitlines() if "pip install" in x)
    extras = subprocess.run(["sh", "-c", line.split("pip install --quiet ", 1)[1][2:-1]], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert "distributed" in extras.stdout, extras


def test_make_test_keeps_the_pass_count_when_pytest_args_says_q_again():
    """The recipe's -q is left out when PYTEST_ARGS has its own: -qq would hide "N passed"."""
    for args, quiet in (("", 1), ("-q", 1), ("--quiet -k x", 1), ("-x", 1)):
        out = subprocess.run(["make", "-n", "-o", "mutant-elfs", "test", f"PYTEST_ARGS={args}"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        line = next(x for x in out.stdout.splitlines() if "-m pytest" in x)
        assert line.split().count("-q") + line.split().count("--quiet") == quiet, (args, line)
