"""The playback 3x3 tolerance never falls below the float's own resolution (docs/tolerances.md).

Element by element the bound is max((1e-5 + 1e-7·keys)·max(1, |s|), 1 ulp of the reference
element): a single-value rotation beyond ±180° makes elements of order 10³ whose ulp is above the
formula, and the game's one float multiply R·s may be 1 ulp off the double product. The bound did
not simply grow: 2 ulps in such an element, and 1e-4 in an element of order 1, are still caught.
A tolerance failure's provenance follows the word's data moves back to the arithmetic that made it.
"""
import numpy as np
import pytest

from harness import provenance
from harness.checks import playback as check_playback
from harness.compare import tolerance
from ground.bounds import f32_ulp
from harness.compare.bits import f32_array
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options
from harness.profiles import profile
from harness.runners.cases.chunk import check_chunk

E011 = "e011.cmp::ANM_e011002"
DUN015 = "dun015.cmp::ANM_dun015025"
MOVES = ("lq ", "sq ", "lqc2 ", "sqc2 ", "lw ", "sw ", "lwc1 ", "swc1 ", "mov.s ", "vmove", "or ", "daddu ")


@pytest.fixture(scope="module")
def corpus():
    return Options().open_corpus()


def first_contact(corpus, cid, game=None):
    """The chunk's playback check under the first-contact profile (FLOAT=trunc, 3x3 in tolerance)."""
    opts = Options(float_model="trunc")
    game = game or Game(DEFAULT_IMAGE, "trunc")
    res = check_chunk(game, corpus.chunk(cid), opts.context(cid), profile("first-contact"), only=["playback"])
    assert res["error"] is None, res["error"]
    assert res["counters"]["object matrices"] > 0, "the playback compared no matrix"
    return res


def formula_only(monkeypatch):
    """The checks.md §3 formula alone as every element's bound (the rule before the ulp floor)."""
    monkeypatch.setattr(tolerance, "element_bounds",
                        lambda formula, want: np.broadcast_to(np.asarray(formula, dtype=float)[..., None],
                                                              np.shape(want)).copy())


# -- the rule ------------------------------------------------------------------------------------
def test_one_ulp_is_the_spacing_of_f32_at_the_element():
    assert f32_ulp(1.0) == 2.0 ** -23
    assert f32_ulp(2634.34) == 2.0 ** -12
    assert f32_ulp(-0.999) == 2.0 ** -24            # just below a power of two: that binade
    b = tolerance.element_bounds(np.array([1e-5]), np.array([[2634.34, 0.5] + [0.0] * 7]))
    assert b[0, 0] == 2.0 ** -12 and b[0, 1] == 1e-5         # the larger of the two, per element


# -- chunks at the tolerance's edge --------------------------------------------------------------
def test_e011002_a_1_ulp_difference_in_an_element_of_about_2634_passes(corpus, monkeypatch):
    assert first_contact(corpus, E011)["mismatches"] == []
    formula_only(monkeypatch)
    bad = first_contact(corpus, E011)["mismatches"]
    assert bad, "under the formula alone the chunk fails (the case is exercised)"
    m = bad[0]
    assert m["field"].startswith("matrix[") and 1000 < abs(f32_array([int(m["expected"], 16)])[0]) < 4000
    assert m["deviation"] > m["tolerance"] == pytest.approx(1e-5)
    assert all(abs(int(x["expected"], 16) - int(x["got"], 16)) <= 1 for x in bad), "1 ulp each"


def test_dun015025_is_clean_and_its_tolerance_failure_is_traced_to_arithmetic_not_a_copy(corpus, monkeypatch):
    assert first_contact(corpus, DUN015)["mismatches"] == []
    formula_only(monkeypatch)
    game = Game(DEFAULT_IMAGE, "trunc")
    res = first_contact(corpus, DUN015, game)
    assert res["mismatches"] and all(m["field"].startswith("matrix[") for m in res["mismatches"])
    monkeypatch.undo()
    opts = Options(float_model="trunc")
    res["mismatches"] = res["mismatches"][:1]
    assert provenance.attach(game, corpus.chunk(DUN015), opts.context(DUN015), res) == 1
    p = res["mismatches"][0]["provenance"]
    assert "error" not in p, p
    path = p["value_path"]
    made = path[-1]
    assert "leaf" not in made, path                          # the walk reached an instruction
    assert not made["insn"].startswith(MOVES), made["insn"]   # which is arithmetic, not a move
    assert any(o["hex"] == p["word"] for o in made["outputs"]), "it computed the stored word"
    assert any(s["insn"].startswith(("lq ", "lqc2 ")) and "copy_matrix" in s["symbol"] for s in path[:-1]), \
        "the copy the word went through is on the path, as a move"
    assert p["origin"]["pc"] == made["pc"] and not p["origin"]["insn"].startswith(MOVES)
    assert "copy_matrix" not in p["origin"]["symbol"]


# -- the bound did not simply grow ---------------------------------------------------------------
def planted(monkeypatch, pick, change):
    """The game's coord words as the playback reads them, with one element changed: the first
    (step, track, word) for which pick(value, the track's nine values) holds. Returns the planted
    [(step, track, word)]."""
    done = []
    real = check_playback.play

    def play_planted(*args):
        forwards, coords, states, stopped = real(*args)
        for step in sorted(coords):
            if done:
                break
            mats, alphas = coords[step]
            for j in range(len(mats)):
                nine = f32_array(mats[j][[0, 1, 2, 4, 5, 6, 8, 9, 10]])
                for w, v in zip((0, 1, 2, 4, 5, 6, 8, 9, 10), nine):
                    if pick(v, nine):
                        mats = np.array(mats, copy=True)
                        mats[j, w] = change(int(mats[j, w]))
                        coords[step] = mats, alphas
                        done.append((step, j, w))
                        break
                if done:
                    break
        return forwards, coords, states, stopped
    monkeypatch.setattr(check_playback, "play", play_planted)
    return done


def test_2_ulps_in_a_large_element_are_caught_under_first_contact(corpus, monkeypatch):
    game = Game(DEFAULT_IMAGE, "trunc")
    done = planted(monkeypatch, lambda v, nine: abs(v) > 1000, lambda w: w + 2)
    bad = first_contact(corpus, E011, game)["mismatches"]
    assert done, "no element above 1000 to plant in"
    (step, _j, w), = done
    c, r = divmod(w, 4)
    hit = [m for m in bad if m["step"] == step and m["field"] == f"matrix[{r}][{c}]"]
    assert len(bad) == 1 and hit, bad
    assert hit[0]["tolerance"] == pytest.approx(f32_ulp(f32_array([int(hit[0]["expected"], 16)])[0]))


def test_1e_4_in_an_element_of_order_1_is_caught_under_first_contact(corpus, monkeypatch):
    game = Game(DEFAULT_IMAGE, "trunc")
    import struct

    def plus(w):
        return struct.unpack("<I", struct.pack("<f", f32_array([w])[0] + 1e-4))[0]
    done = planted(monkeypatch, lambda v, nine: 0.5 < abs(v) <= 1 and np.abs(nine).max() <= 1, plus)
    bad = first_contact(corpus, E011, game)["mismatches"]
    assert done, "no element of order 1 to plant in"
    (step, _j, w), = done
    c, r = divmod(w, 4)
    assert [(m["step"], m["field"]) for m in bad] == [(step, f"matrix[{r}][{c}]")], bad
    assert bad[0]["tolerance"] == pytest.approx(1e-5) and bad[0]["deviation"] == pytest.approx(1e-4, rel=0.01)


# -- first contact near zero (tolerances.md §1) ----------------------------------------------------
def test_a_plain_rotation_element_zero_on_one_side_only_or_of_the_other_sign_fails_however_small():
    """Where the rotation is not keyed the game's element is one multiply R·s of the reference's
    exact R and s: zero exactly where R·s is, else of its sign. A keyed rotation's is judged by the
    bound alone (its running matrix may leave an element near zero on either side)."""
    want = np.zeros((3, 9))
    got = np.zeros((3, 9))
    want[0, 4], got[0, 4] = 9e-6, 0.0                       # the game 0, the other side 9e-6
    want[1, 2], got[1, 2] = 4e-6, -4e-6                     # a sign flip below 5e-6
    want[2, 7], got[2, 7] = 1e-39, 0.0                      # below the smallest normal: flushed, equal
    keys, scale = np.zeros(3), np.ones((3, 3))
    w, d, bound, ok = tolerance.compare(got, want, keys, scale, keyed=False)
    assert ok.tolist() == [False, False, True]
    assert w[:2].tolist() == [4, 2] and bound[:2].tolist() == [0.0, 0.0] and d[0] == 9e-6
    _, _, _, ok = tolerance.compare(got, want, keys, scale, keyed=True)
    assert ok.tolist() == [True, True, True]
    got[0, 4], want[0, 4] = -0.0, 0.0                        # ±0 are one value
    assert tolerance.compare(got[:1], want[:1], keys[:1], scale[:1], keyed=False)[3].tolist() == [True]


def test_the_answer_being_judged_can_narrow_its_ulp_but_never_widen_it():
    """The ulp floor is the smaller of the two elements': a game word 2 ulps below 2048 is caught
    even against a claimed 2048.0 (whose own ulp is twice the game's), and a correct game's element
    (in the exact product's binade, or rounded up to the next power of two) keeps the exact
    product's ulp."""
    want, got = np.zeros((1, 9)), np.zeros((1, 9))
    want[0, 0], got[0, 0] = 2048.0, 2048.0 - 2.0 ** -12
    w, d, bound, ok = tolerance.compare(got, want, [0], [[1.0, 1.0, 1.0]])
    assert not ok[0] and bound[0] == 2.0 ** -13 and d[0] == 2.0 ** -12
    want[0, 0], got[0, 0] = 2048.0 - 2.0 ** -14, 2048.0            # rounded up across the power of two
    w, d, bound, ok = tolerance.compare(got, want, [0], [[1.0, 1.0, 1.0]])
    assert ok[0] and bound[0] == 2.0 ** -13


def test_9e_6_where_the_game_has_an_exact_zero_is_caught_under_first_contact(corpus, monkeypatch):
    import struct
    game = Game(DEFAULT_IMAGE, "trunc")
    done = planted(monkeypatch, lambda v, nine: v == 0.0, lambda w: struct.unpack("<I", struct.pack("<f", 9e-6))[0])
    bad = first_contact(corpus, E011, game)["mismatches"]
    assert done, "no zero element to plant in"
    (step, _j, w), = done
    c, r = divmod(w, 4)
    assert [(m["step"], m["field"]) for m in bad] == [(step, f"matrix[{r}][{c}]")], bad
    assert bad[0]["tolerance"] == 0.0 and bad[0]["deviation"] == pytest.approx(9e-6)


def test_a_negative_zero_where_the_reference_has_zero_passes_under_first_contact(corpus, monkeypatch):
    game = Game(DEFAULT_IMAGE, "trunc")
    done = planted(monkeypatch, lambda v, nine: v == 0.0, lambda w: w ^ 0x80000000)
    assert first_contact(corpus, E011, game)["mismatches"] == [] and done
