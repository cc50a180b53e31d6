"""The synthetic archive carries every documented quirk the disc's census does not count,
each in realistic proportion, while test_stats.py's disc figures still match exactly: late first
keys on all four channels and on materials (animation-semantics.md §2.2 step 2), keyed rotations
held after a turn (a step with no axis, §3.4 step 4, whose pose is the running matrix, §3.6), controller
transparencies outside [0, 1] (only F_Obj clamps, §11), texture scrolls with |U| or |V| >= 8 whose
U * 4096 wraps in 16 bits (§6), F_Obj scales that are not 1, unequal and negative (§11), and the
light and camera records in every form formats.md §4.7-4.8 lists."""
import pytest

from corpus.quirks import DIRECT_FIELDS, quirk_census


@pytest.fixture(scope="module")
def quirks(full_corpus):
    q = quirk_census(full_corpus)
    print("\nquirk census:", q)
    return q


def test_late_first_keys_on_every_channel_and_on_materials(quirks, figures_kinds):
    late = quirks["late_first_key"]
    for ch in ("pos", "rot", "scale", "alpha"):
        assert late.get(ch, 0) > 0, ch
        assert late[ch] < 0.1 * figures_kinds[f"{ch}:2"], f"{ch}: not rare"
    assert late.get("material_u", 0) + late.get("material_v", 0) > 0


def test_rotations_held_after_a_turn(quirks, figures_kinds):
    held = quirks["held_rotation_keys"]
    assert 0 < held < 0.1 * figures_kinds["rot:2"], held


def test_transparency_scroll_and_fobj_quirks(quirks):
    assert quirks["alpha_outside_0_1"] > 0
    assert quirks["uv_wrapping"] > 0
    for k in ("fobj_scale_not_1", "fobj_scale_negative", "fobj_scale_unequal", "fobj_alpha_outside_0_1"):
        assert quirks[k] > 0, k
    assert quirks["fobj_scale_not_1"] < 0.5 * 3388


def test_lights_and_cameras_in_every_form(quirks):
    d = quirks["direct_light_channels"]
    for name, _, _ in DIRECT_FIELDS:
        for kind in (0, 1, 2):
            assert d.get(f"{name}:{kind}", 0) > 0, f"direct light {name} of kind {kind}"
    for kind in ("distant", "direct", "spot", "omni"):
        assert quirks.get(f"{kind}_with_keyed_channel", 0) > 0, kind
    assert quirks["f_camera"] == 4956 and quirks["f_ambient"] == 17764


@pytest.fixture(scope="module")
def figures_kinds(full_dir):
    import json
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "corpus", "stats", os.path.join(full_dir, "DATA.BIN"), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["controllers"]["kinds"]
