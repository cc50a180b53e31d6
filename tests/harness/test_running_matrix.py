"""The running matrix after a held key (animation-semantics.md §3.6, controllers.check_running_matrix):
from the turn's end through the hold the pose is the W the turn reached. An executable that poses
the held key's own sceVu0RotMatrix there, while the turn ended elsewhere, keeps no running product;
any other pose is left to the tolerance compare."""
from types import SimpleNamespace

from harness.checks.controllers import check_running_matrix
from harness.compare.mismatch import CaseContext
from harness.compare.tally import Tally
from harness.driver.game import Scratch

ONE = 0x3F800000
KEY = tuple([ONE, 0, 0, 0, 0, 0x3F7FFFFF, 0x3C000000, 0, 0, 0xBC000000, 0x3F7FFFFF, 0, 0, 0, 0, ONE])
DRIFTED = tuple(w + 3 if w >> 23 & 0xFF and w & 0x7FFFFF else w for w in KEY)   # a few ulp away
T = 1024


def run(end, held):
    tally = Tally()
    seen = {T: Scratch((0, 0, 0), (ONE,) * 3, end, ONE).rot9, T + 1: Scratch((0, 0, 0), (ONE,) * 3, held, ONE).rot9}
    tr = SimpleNamespace(record=SimpleNamespace(object=7, index=2, rot=None))
    own = Scratch((0, 0, 0), (ONE,) * 3, KEY, ONE).rot9
    check_running_matrix(seen, [(T, 1, own)], tr, CaseContext("x.cmp::ANM_x", 4), tally)
    return tally


def test_a_hold_that_keeps_the_pose_the_turn_reached_passes():
    t = run(DRIFTED, DRIFTED)
    assert not t.mismatches
    assert t.counters["running-matrix holds"] == 1 and t.counters["running-matrix holds continuous"] == 1


def test_a_hold_that_poses_the_keys_own_matrix_after_a_turn_that_ended_elsewhere_fails():
    t = run(DRIFTED, KEY)
    (m,) = t.mismatches
    assert (m["check"], m["field"], m["time"], m["object"]) == ("controllers", "running matrix", T + 1, 7)
    assert m["context"]["held_key"] == 1 and m["context"]["turn_ends_at"] == T
    assert "own sceVu0RotMatrix" in m["context"]["why"]


def test_the_key_matrix_reached_exactly_by_the_turn_passes():
    """A running product that lands on the key's bits is continuous: no failure."""
    assert not run(KEY, KEY).mismatches


def test_a_hold_that_is_neither_is_left_to_the_tolerance_compare():
    other = tuple(w ^ 1 if w >> 23 & 0xFF else w for w in KEY)
    t = run(DRIFTED, other)
    assert not t.mismatches and t.counters["running-matrix holds continuous"] == 0


def test_signed_zeros_are_one_value():
    """identity ⊗ W can turn −0 into +0 (§3.2): that is still the same pose."""
    neg = tuple(0x80000000 if w == 0 else w for w in DRIFTED)
    assert not run(DRIFTED, neg).mismatches and run(DRIFTED, neg).counters["running-matrix holds continuous"] == 1
