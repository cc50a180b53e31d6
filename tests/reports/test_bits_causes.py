"""Raw-bit views (reports.bits) and the likely-cause heuristic (reports.causes)."""
from reports.bits import bit_ranges, float_text, parse_u32, ulp_distance
from reports.causes import classify, classify_run
from tests.reports.fake_run import mismatch

C = "m.cmp::ANM_x"


def test_u32_patterns_parse_from_hex_decimal_and_ints():
    assert parse_u32("0x3f800000") == 0x3F800000
    assert parse_u32("1065353216") == 0x3F800000
    assert parse_u32(-1) == 0xFFFFFFFF
    assert parse_u32("1.5") is None and parse_u32([1]) is None and parse_u32(True) is None


def test_ulp_distance_counts_floats_between_patterns():
    assert ulp_distance(0x3F800000, 0x3F800001) == 1
    assert ulp_distance(0x00000000, 0x80000000) == 0          # +0 and -0
    assert ulp_distance(0x00000001, 0x80000001) == 2          # across zero
    assert ulp_distance(0x3F800000, 0x3F7FFFFF) == 1          # across an exponent step


def test_bit_ranges_name_sign_exponent_fraction():
    assert bit_ranges(0) == "no bits differ"
    assert bit_ranges(1) == "1 bit(s): fraction 0"
    assert bit_ranges(0x80800003) == "4 bit(s): sign 31, exponent 23, fraction 0-1"


def test_float_text_names_ee_special_patterns():
    """ee-float.md: no Inf/NaN and no denormals on the EE; display says so."""
    assert float_text(0x3F800000) == "1.0"
    assert "exp 255" in float_text(0x7F800000)
    assert "denormal" in float_text(0x00000001)


def cause(m, group=None):
    return classify(m, group or [m])


def test_frame_counter_and_return_value_are_playback_control():
    assert cause(mismatch(C, "playback", "frame counter", "0x00000405", "0x00000500")) == "playback control"
    assert cause(mismatch(C, "notes", "return value", 0, 1)) == "playback control"


def test_reversed_note_lists_are_note_order_and_missing_ones_are_named():
    a, b = [2, 2, 4, 7], [32773, 1, 4, 7]
    assert cause(mismatch(C, "notes", "notes", [a, b], [b, a])) == "note order"
    assert cause(mismatch(C, "notes", "notes", [a, b], [a])) == "missing/extra items"
    assert cause(mismatch(C, "playback", "morph state", [[22, 5]], [])) == "missing/extra items"


def test_a_value_from_an_earlier_step_is_stale_and_from_a_later_one_ahead():
    """A morph record applied one frame late: got at step k = expected at step k-1."""
    ms = [mismatch(C, "playback", "morph state", [[22, w]], [[22, w - 1]], object=145, step=w,
                   time=256 * w) for w in range(3, 8)]
    causes = classify_run([{"chunk": C, "mismatches": ms}])
    assert [causes[id(m)] for m in ms] == ["wrong value"] + ["stale value"] * 4
    ahead = [mismatch(C, "controllers", "position.x", f"0x{0x3f800000 + k:08x}",
                      f"0x{0x3f800000 + k + 10:08x}", track=2, time=256 * k)
             for k in (0, 10, 20)]
    causes = classify_run([{"chunk": C, "mismatches": ahead}])
    assert [causes[id(m)] for m in ahead] == ["ahead", "ahead", "wrong value"]


def test_value_landing_in_another_field_is_layout():
    """position.x got what position.y expected, at the same time and track."""
    x = mismatch(C, "controllers", "position.x", "0x3f800000", "0x40000000", track=1, time=256)
    y = mismatch(C, "controllers", "position.y", "0x40000000", "0x40400000", track=1, time=256)
    causes = classify_run([{"chunk": C, "mismatches": [x, y]}])
    assert causes[id(x)] == "layout"


def test_keyed_rotation_just_beyond_tolerance_is_drift_far_beyond_is_not():
    near = mismatch(C, "controllers", "rotation[1][2]", "0x3e4ccccd", "0x3e4cd0a0",
                    deviation=2.4e-5, tolerance=1.7e-5)
    far = mismatch(C, "controllers", "rotation[1][2]", "0x3e4ccccd", "0xbf000000",
                   deviation=0.7, tolerance=1.7e-5)
    assert cause(near) == "drift"
    assert cause(far) != "drift"


def test_one_or_two_ulp_is_rounding_and_a_flipped_sign_is_sign():
    assert cause(mismatch(C, "controllers", "scale.z", "0x3f800000", "0x3f800002")) == "rounding"
    assert cause(mismatch(C, "materials", "U", "0x3f800000", "0xbf800000")) == "sign"


def test_isolated_and_repeated_wrong_values():
    m1 = mismatch(C, "controllers", "transparency", "0x3f800000", "0x3f000000", time=5)
    m2 = mismatch(C, "controllers", "transparency", "0x3f800000", "0x3e000000", time=9)
    assert cause(m1) == "single value"
    assert classify(m1, [m1, m2]) == "wrong value"


def test_integer_fields_have_no_ulp_and_are_not_rounding():
    """materials u/v are u16 offsets (checks.md §2.2): 1 apart is a wrong value, not rounding."""
    m = mismatch(C, "materials", "u", "0x00000010", "0x00000011")
    assert cause(m) == "single value"
