"""The exit statuses README.md documents, through make: GNU make exits 0 when the command passed
and 2 whenever it did not; the harness's own status is in make's last line ("Error N"), in the
closing line ("(exit N)") and in summary.json ("exit_status"). Each documented status is produced
here through its make target and read where the README says it is."""
import json
import os
import re
import subprocess


from tests.harness import archives

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "standin", "build", "mutants")


def make(*words, timeout=900):
    # a shell's make, not a sub-make of `make test` (whose MAKELEVEL makes it print "make[1]:")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "EEDIFF_", "MK_"))
           and k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    return subprocess.run(["make", *words], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)


def harness_status(r):
    """make's own status, and the harness's from make's 'Error N' line (0 when make passed)."""
    m = re.search(r"make: \*\*\* \[\S+: \w+\] Error (\d+)$", r.stderr.strip(), re.M)
    return r.returncode, int(m[1]) if m else 0


def mutant(name):
    from tests.harness.mutant_elfs import mutant_elf
    return mutant_elf(name)


def summary(run):
    return json.load(open(os.path.join(run, "summary.json")))


def test_a_passing_bulk_is_0_everywhere(tmp_path):
    r = make("bulk", "N=1", "CHECK=notes", "PROFILE=quick", f"OUT={tmp_path / 'run'}")
    assert harness_status(r) == (0, 0), r.stderr[-2000:]
    assert "PASS (exit 0)" in r.stdout and summary(tmp_path / "run")["exit_status"] == 0


def test_mismatches_are_1_in_makes_line_the_closing_line_and_the_summary(tmp_path):
    elf = mutant("note_list_file_order")
    r = make("bulk", "N=4", "CHECK=notes", "PROFILE=quick", f"IMAGE={elf}", f"OUT={tmp_path / 'run'}")
    assert harness_status(r) == (2, 1), r.stderr[-2000:]
    assert "FAIL (mismatches) (exit 1)" in r.stdout
    s = summary(tmp_path / "run")
    assert (s["status"], s["exit_status"]) == ("mismatches", 1)


def test_nothing_compared_is_5(tmp_path):
    data = archives.small_archive(str(tmp_path / "DATA.BIN"))
    r = make("bulk", "N=5", "CHECK=notes", "PROFILE=quick", f"DATA={data}", f"OUT={tmp_path / 'run'}")
    assert harness_status(r) == (2, 5), r.stdout[-2000:] + r.stderr[-2000:]
    assert "NOTHING COMPARED (exit 5)" in r.stdout and summary(tmp_path / "run")["exit_status"] == 5
    one = make("one", "CASE=xp_flag.cmp::ANM_xpflnut0", "CHECK=notes")
    assert harness_status(one) == (2, 5) and "nothing compared" in one.stderr, one.stderr[-2000:]


def test_a_usage_error_is_2():
    r = make("bulk", "N=0")
    assert harness_status(r) == (2, 2) and "N: must be at least 1" in r.stderr, r.stderr[-2000:]


def test_a_probe_not_ready_is_1():
    r = make("probe", f"IMAGE={mutant('probe-null_call')}")
    assert harness_status(r) == (2, 1), r.stderr[-2000:]
    assert "NOT READY" in r.stdout + r.stderr


def test_the_recipe_make_prints_gives_the_harness_status_directly(tmp_path):
    """CI that wants the number runs the recipe's own command (`make -n bulk …`)."""
    recipe = make("-n", "bulk", "N=1", "CHECK=notes", "PROFILE=quick", f"OUT={tmp_path / 'run'}").stdout
    line = " ".join(l.rstrip("\\") for l in recipe.splitlines() if l.strip())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "EEDIFF_"))}
    env.update(MK_N="1", MK_CHECK="notes", MK_PROFILE="quick", MK_OUT=str(tmp_path / "run"), MK_SEED="4",
               MK_JOBS="auto", MK_FLOAT="hw")
    env["MK_DATA"] = archives.small_archive(str(tmp_path / "DATA.BIN"))      # no note chunk: status 5
    r = subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 5, r.stdout[-1000:] + r.stderr[-1000:]


def test_an_unknown_engine_is_a_usage_error_naming_engine():
    """Before: 'IMAGE=standin/standin.elf: ValueError: engine must be one of ...'."""
    r = make("one", "ENGINE=fast", "CASE=xp_flag.cmp::ANM_xp_flag004")
    assert harness_status(r) == (2, 2), r.stderr[-2000:]
    assert "ENGINE=fast: the machine engine must be one of native, python, lockstep" in r.stderr
    assert "IMAGE=" not in r.stderr
