"""The controller comparison (checks.md §2.1) is one function, controllers.pose_failures, which the
in-process check and a model's answers against a truth file (harness/truth/check.py) both call:
words equal, a keyed rotation within checks.md §3's bound at the game's side's keys passed, and
the failures in time order, each time's position and scale axis by axis, then transparency,
rotation and localtp."""
import numpy as np

from harness.checks import controllers as C
from harness.compare.bits import f32_array, f32_bits

ONE, HALF = 0x3F800000, 0x3F000000
IDENTITY9 = [ONE, 0, 0, 0, ONE, 0, 0, 0, ONE]


def words(n, **change):
    w = {"pos": np.full((n, 3), HALF, dtype=np.uint32), "scale": np.full((n, 3), ONE, dtype=np.uint32),
         "alpha": np.full(n, ONE, dtype=np.uint32), "rot": np.tile(np.array(IDENTITY9, dtype=np.uint32), (n, 1)),
         "localtp": np.full(n, ONE, dtype=np.uint32)}
    for (c, k, *j), v in change.items():
        w[c][(k, *j)] = v
    return w


def test_each_time_fails_in_the_order_position_and_scale_by_axis_transparency_rotation_localtp():
    got = words(3)
    got["pos"][2, 1] ^= 1
    got["scale"][2, 0] ^= 1
    got["alpha"][2] ^= 1
    got["rot"][2, 4] ^= 1
    got["localtp"][0] ^= 1
    got["pos"][0, 2] ^= 1
    failures, keyed = C.pose_failures(got, words(3), "exact", localtp=True)
    assert keyed is None
    assert [(k, str(f)) for k, f, *_ in failures] == [
        (0, "position.z"), (0, "localtp"), (2, "scale.x"), (2, "position.y"), (2, "transparency"),
        (2, "rotation[1][1]")]
    k, field, channel, e, g, bound = failures[-1]
    assert (channel, e, g, bound) == ("rot", ONE, ONE ^ 1, None)


def test_a_rotation_channel_that_is_absent_is_not_compared_nor_the_localtp_unless_asked():
    got = words(1)
    got["rot"][0, 0] = 0
    got["localtp"][0] = 0
    assert C.pose_failures(got, words(1), "none")[0] == []


def test_a_keyed_element_fails_beyond_the_bound_of_the_keys_passed_and_shows_the_nearest_f32():
    want_r = f32_array(np.tile(np.array(IDENTITY9, dtype=np.uint32), (2, 1)))
    got = words(2)
    got["rot"][0, 3] = f32_bits(2e-5)             # element [0][1]: 2e-5 off
    got["rot"][1, 3] = f32_bits(2e-5)
    # 10 keys passed: 1e-5 + 1e-6 < 2e-5 fails; 200 keys: 3e-5 passes
    failures, (d, bound) = C.pose_failures(got, {c: v for c, v in words(2).items() if c != "rot"}, "keyed",
                                           want_r, np.array([10, 200]))
    assert [(k, str(f)) for k, f, *_ in failures] == [(0, "rotation[0][1]")]
    _, _, channel, e, g, b = failures[0]
    assert (channel, e, g) == ("rot", 0, f32_bits(2e-5))
    assert b["tolerance"] == bound[0] and b["deviation"] == d[0] > b["tolerance"]
    assert bound[1] > d[1]
