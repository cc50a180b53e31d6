"""A "shrunk" repro is called shrunk only when it is smaller than the input it came from: a plan
from which nothing could be dropped is shown as the whole replay, in the report and in `make one`."""
from harness.compare.mismatch import CaseContext, record
from harness.compare.show import format_mismatch
from reports.describe import view
from reports.detail import detail_html


def mismatch(plan, original_length):
    m = record(CaseContext("m.cmp::ANM_x", 4, "nightly", "hw"), "notes", "notes", [1], [2], floats=False, step=3)
    m["shrunk"] = {"plan": plan, "repro": "replay --plan ...", "original_length": original_length, "tests": 7}
    return m


def test_a_plan_that_lost_steps_is_a_shrunk_reproduction():
    m = mismatch([[256, False], [256, False]], 12)
    assert "Shrunk reproduction" in detail_html(view(1, m, "rounding")) and "  shrunk    " in format_mismatch(m)


def test_a_plan_that_lost_nothing_is_a_replay_not_a_shrunk_one():
    m = mismatch([[256, False]] * 12, 12)
    html = detail_html(view(1, m, "rounding"))
    assert "Shrunk reproduction" not in html and "Replay (nothing could be dropped)" in html
    text = format_mismatch(m)
    assert "shrunk" not in text.replace('"shrunk"', "") and "replay    (nothing could be dropped)" in text
