"""The direct light 0x0605 (formats.md §4.7, docs/lights.md): SetAnmCtrlWork evaluates its present
channels into the light, radius 2 with its square, and leaves an absent channel's words as they
were. The controllers check compares its 15 words at the check's times as the ledger kind
"direct light records"; the light kinds the game does not evaluate are in the ledger by name,
never left out; the truth export and the model protocol carry the same comparison."""
import os
import struct

import pytest

from corpus.anime import build_anime, other
from corpus.lights import direct_lights
from harness.checks.controllers import LIGHT_FIELDS, compare_light
from harness.compare.mismatch import CaseContext
from harness.compare.tally import Tally
from harness.driver import memory_map as mm
from harness.options import ROOT
from reference.animation import Animation
from reports.ledger import left_out, lines

ROOMS = [f"{r}.cmp::ANM_{r}lig0" for r in ("se1_1", "se1_2", "se1_3", "se2_1", "se2_2", "se3_1", "se3_2")]
STANDIN = os.path.join(ROOT, "standin", "standin.elf")
MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "light_square_of_radius1.elf")


def f(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def light_chunk(flags, words, frames=11):
    return build_anime(object=1, frames=frames, others=[other(0, 0x0605, (9, flags, *words))])


# se1_3's documented light: position (0, 0, 2500), white, radii 498 and 500 (formats.md §4.7)
SE1_3 = (0x240041, [0, 0, f(2500.0), f(1.0), f(1.0), f(1.0), f(498.0), f(500.0)])


def test_the_documented_light_gives_its_values_its_radius_square_and_nothing_for_absent_channels():
    anim = Animation.parse(light_chunk(*SE1_3), native=False)
    (lt,) = anim.lights
    assert lt.object == 9
    w = anim.light_words(lt, 700)
    assert w == (0, 0, f(2500.0), None, None, None, f(1.0), f(1.0), f(1.0), None, None, None,
                 f(498.0), f(500.0), f(250000.0))


def test_a_keyed_scalar_channel_is_interpolated_and_held_past_last():
    # beam end keyed (bits 15-17 = 2): 0.0 at frame 0, 10.0 at frame 10
    flags = 2 << 15
    words = [2, 0, f(0.0), 10, f(10.0)]
    anim = Animation.parse(light_chunk(flags, words), native=False)
    w = anim.light_words(0, 5 * 256)
    assert w[LIGHT_FIELDS.index("beam_end")] == f(5.0)
    assert anim.light_words(0, 40 * 256)[LIGHT_FIELDS.index("beam_end")] == f(10.0)
    assert [x for j, x in enumerate(w) if j != LIGHT_FIELDS.index("beam_end")] == [None] * 14


def test_a_light_record_that_does_not_decode_as_object_flags_channels_is_refused_naming_its_offset():
    from corpus.errors import CorpusError
    from corpus.anime import parse_anime
    a = parse_anime(light_chunk(0x1, [f(1.0)]))      # a 3-word position with one word
    with pytest.raises(CorpusError) as e:
        direct_lights(a, where="m.cmp::ANM_x")
    assert "runs past the record" in str(e.value) and "m.cmp::ANM_x" in str(e.value)


def run_compare(words, flags_words=SE1_3):
    """The light query of the game's `words` at time 256, against the reference's answer."""
    from reference.serve import light
    anim = Animation.parse(light_chunk(*flags_words), native=False)
    present = [j for j, w in enumerate(anim.light_words(0, 0)) if w is not None]
    q = {"kind": "light", "light": 0, "object": 0, "times": [256], "fields": present, "game": {"words": words}}
    tally = Tally()
    assert compare_light(q, light(anim, q), CaseContext("m.cmp::ANM_x", 4), tally, anim)
    return tally


def test_the_compare_wants_the_poison_in_an_absent_channels_words():
    anim = Animation.parse(light_chunk(*SE1_3), native=False)
    good = [[mm.POISON if w is None else w for w in anim.light_words(0, 256)]]
    assert not run_compare(good).mismatches
    written = [list(good[0])]
    written[0][LIGHT_FIELDS.index("beam_start")] = 0         # a game that writes an absent channel
    (m,) = run_compare(written).mismatches
    assert (m["check"], m["field"], m["expected"], m["got"]) == ("controllers", "light.beam_start",
                                                                f"0x{mm.POISON:08x}", "0x00000000")
    assert m["context"]["offset"] == "+0x144" and m["context"]["absent"] is True
    assert m["inferred"].startswith("inferred rule: direct light fields")


def check(elf, cid, check="controllers"):
    from harness.driver.game import Game
    from harness.options import Options
    from harness.profiles import profile
    from harness.runners.cases.chunk import check_chunk
    opts = Options(seed=4, profile="nightly")
    corpus = opts.open_corpus()
    return check_chunk(Game(elf, "hw"), corpus.chunk(cid), opts.context(cid), profile("nightly"), only=[check])


pytest.importorskip("eemu_ext")


@pytest.mark.parametrize("cid", ROOMS)
def test_every_event_rooms_direct_light_is_compared_and_the_ledger_says_so(cid):
    rec = check(STANDIN, cid)
    assert not rec["mismatches"] and not rec["error"], (rec["mismatches"][:1], rec["error"])
    assert rec["ledger"]["direct light records"] == [1, 1]
    assert rec["counters"]["direct light cases"] >= 2


def test_a_game_that_squares_the_wrong_radius_fails_the_light():
    if not os.path.exists(MUTANT):
        pytest.skip("needs the mutant ELFs (make -C standin mutants, with gcc-mipsel-linux-gnu)")
    rec = check(MUTANT, ROOMS[2])
    assert {m["field"] for m in rec["mismatches"]} == {"light.radius2_squared"}


def test_the_light_kinds_the_game_does_not_evaluate_are_in_the_ledger_by_name_and_never_left_out():
    rec = check(STANDIN, "town05.cmp::ANM_town05sky0")
    led = rec["ledger"]
    assert led["spot light records"] == [1, 0] and led["distant light records"] == [1, 0]
    assert left_out(led, every_record=True) == []
    assert "1 spot light records not evaluated by the game, none compared" in lines(led)


def test_the_truth_light_query_answered_by_the_reference_serve_matches_and_a_wrong_answer_does_not():
    from harness.driver.game import Game
    from harness.options import Options
    from harness.profiles import profile, rng
    from harness.checks import parse_reference
    from harness.truth import check as tcheck
    from harness.checks.controllers import queries
    from reference.serve import answer
    opts = Options(seed=4, profile="nightly")
    ch = opts.open_corpus().chunk(ROOMS[1])               # se1_2: every channel keyed
    anim = parse_reference(ch, "hw")
    qs = queries(Game(STANDIN, "hw"), ch, anim, profile("nightly"), rng(4, ch.id, "controllers"))
    for i, q in enumerate(qs):
        q["i"] = i
    (lq,) = [q for q in qs if q["kind"] == "light"]
    assert lq["fields"] == list(range(15)) and lq["ledger"] == [["direct light records", 0, 1]]
    (a,) = answer(ch.data, {}, "hw", [lq])
    tally = Tally()
    assert tcheck.compare(lq, a, CaseContext(ch.id, 4), tally, anim) and not tally.mismatches
    assert tally.ledger["direct light records"] == {0: 1}
    a["words"][0][3] ^= 1
    tcheck.compare(lq, a, CaseContext(ch.id, 4), tally, anim)
    (m,) = tally.mismatches
    assert m["field"] == "light.rotation.x"
