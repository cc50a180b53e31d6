"""`make test` of the whole suite says how much of its budget it took (eediff_pytest.budget_line):
within it, or over it and by how much. The line never fails a run; it is printed only when the
Makefile sets the budget, that is when PYTEST_ARGS chose no subset."""
import os
import subprocess
import sys

from eediff_pytest import SUITE_BUDGET_ENV, budget_line


def test_a_run_within_its_budget_says_so_and_a_longer_one_says_by_how_much_it_is_over():
    assert budget_line(25 * 60 + 7, 28) == ("the suite took 25:07 of wall time: within its budget of 28 "
                                            "minutes (CI allows the whole job 30 minutes)")
    assert "OVER its budget by 2:05" in budget_line(30 * 60 + 5, 28)


def run_pytest(tmp_path, budget):
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    if budget is not None:
        env[SUITE_BUDGET_ENV] = budget
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        str(tmp_path / "test_one.py")], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_the_summary_carries_the_budget_line_only_when_the_makefile_sets_the_budget(tmp_path):
    assert "within its budget of 28 minutes" in run_pytest(tmp_path, "28")
    assert "OVER its budget" in run_pytest(tmp_path, "0.00001")
    assert "budget" not in run_pytest(tmp_path, None)


def test_a_budget_that_is_not_a_number_is_named_and_the_run_keeps_its_result(tmp_path):
    out = run_pytest(tmp_path, "half\x1b[2J")
    assert "EEDIFF_SUITE_BUDGET='half\\x1b[2J' is not a number of minutes" in out and "1 passed" in out
