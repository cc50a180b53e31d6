"""`make bulk` runs the synthetic Modify blends of checks.md §5.2 as pseudo-chunks with their own ids
(harness/morph_pseudo.py), so a Modify misreading is caught by the nightly: the stand-in passes
them, a build that misreads the blend fails them."""
import os
import struct

import pytest

from harness.runners.cases import morph_pseudo
from harness.options import ROOT, Options


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def test_every_pseudo_chunk_has_its_own_id_and_cases():
    ids = morph_pseudo.ids()
    assert len(set(ids)) == len(ids) and all(morph_pseudo.is_pseudo(i) for i in ids)
    assert sum(len(morph_pseudo.cases(i)) for i in ids) == 4 + 15 + 12 + 300
    with pytest.raises(ValueError, match="synthetic::morph/nope"):
        morph_pseudo.cases("synthetic::morph/nope")


def test_the_weights_the_disc_lacks_are_in_the_pseudo_chunks():
    """corpus-stats.md §6: every disc weight is in [0, 8); weights below 0, -0 and at 8 or above
    live in these cases (and only there, so the census keeps the disc's figure)."""
    ws = [w for i in morph_pseudo.ids() for c in morph_pseudo.cases(i) for _, _, w in c.targets]
    assert sum(1 for w in ws if w >> 31 and w != 0x80000000) > 10
    assert 0x80000000 in ws
    assert sum(1 for w in ws if not w >> 31 and f(w) >= 8) >= 8
    assert any(not w >> 31 and f(w) >= 16 for w in ws)


@pytest.fixture(scope="module")
def game():
    pytest.importorskip("eemu_ext")
    from harness.driver.game import Game
    return Game(os.path.join(ROOT, "standin", "standin.elf"), "hw")


def test_the_stand_in_passes_every_pseudo_chunk(game):
    opts = Options(seed=4)
    for cid in morph_pseudo.ids():
        res = morph_pseudo.check_pseudo(game, cid, opts.context(cid))
        assert res["error"] is None and res["counters"]["morph cases"] > 0, cid
        assert not res["mismatches"], (cid, res["mismatches"][:2])


def test_a_wrapping_blend_fails_the_pseudo_chunks():
    pytest.importorskip("eemu_ext")
    from harness.driver.game import Game
    elf = os.path.join(ROOT, "standin", "build", "mutants", "blend_no_saturation.elf")
    if not os.path.exists(elf):
        pytest.skip("needs the mutant ELFs (make -C standin mutants, with gcc-mipsel-linux-gnu)")
    g = Game(elf, "hw")
    opts = Options(seed=4)
    bad = [cid for cid in morph_pseudo.ids() if morph_pseudo.check_pseudo(g, cid, opts.context(cid))["mismatches"]]
    assert morph_pseudo.PREFIX + "edge" in bad and morph_pseudo.PREFIX + "weights" in bad
