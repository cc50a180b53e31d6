"""Each mutant of a quirk the synthetic corpus carries is caught by the default `make bulk`
sample (seed 4, N = 200: `make bulk N=200`), not only by a hand-picked case: the first chunks of
that sample that carry the quirk make the mutant mismatch under the check it names, and the
unmodified stand-in passes the same chunks. The per-key-matrix mutant is more accurate than the
game, inside every tolerance; a rotation held after a turn shows it (the controllers check's
running-matrix holds, animation-semantics.md §3.6). The anm-object mutants are caught by the
objects or world check on the sample's chunks that carry the pattern they break."""
import os

import pytest

from corpus.quirks import held_rotation_keys

pytest.importorskip("eemu_ext")

SEED, N = 4, 200
# mutant -> (the check that catches it, a test for the chunk carrying the quirk)
QUIRKS = {
    "no_hold_before_late_key": ("playback", lambda a: any(
        getattr(t, c).kind == 2 and getattr(t, c).keys[0][0] > 0 for t in a.tracks
        for c in ("pos", "scale", "alpha"))),
    "controller_alpha_clamped": ("controllers", lambda a: any(
        t.alpha.kind and any(not 0.0 <= _f(w) <= 1.0 for w in _vals(t.alpha) if (w >> 23) & 0xFF)
        for t in a.tracks)),
    "texture_saturates": ("materials", lambda a: any(
        abs(_f(w)) >= 8 for m in a.materials for c in (m.u, m.v) for w in _vals(c) if (w >> 23) & 0xFF)),
    "rot_per_key_matrix": ("controllers", lambda a: any(held_rotation_keys(t.rot) for t in a.tracks)),
    "fobj_scale_first": ("fobj", lambda a: any(len({_f(w) for w in o.scale}) > 1 for o in a.fobjs)),
    "light_square_of_radius1": ("controllers", lambda a: any(o.kind == 0x0605 for o in a.others)),
}
# the anm's objects (anim-objects.md §3.6): a chunk's records and the names of what they name
def _copies(ch):
    """Two of the clip's objects stand for one piece (ExtObj copies): its entries compete for it."""
    return len({t.target for t in ch.anime.tracks}) < len({t.object for t in ch.anime.tracks})


def _hung(ch):
    return len(ch.anime.tracks) >= 2


OBJECT_QUIRKS = {
    "objects_first_entry_wins": ("objects", _copies),
    "objects_made_not_hung": ("objects", _copies),
    "objects_skin_first_claim": ("objects", _copies),
    "objects_parent_own_slot": ("objects", _hung),
    "objects_delete_frees_node": ("objects", _hung),
    "objects_draw_without_4": ("objects", lambda ch: any(
        t.object != t.target and ch.names.get(t.target, "").startswith("EFF_") for t in ch.anime.tracks)),
    "world_local_times_parent": ("world", _hung),
}
QUIRKS.update(OBJECT_QUIRKS)


def _f(w):
    import struct
    return struct.unpack("<f", struct.pack("<I", w))[0]


def _vals(c):
    return list(c.value) + [w for _, ws in c.keys for w in ws]


@pytest.fixture(scope="module")
def sample():
    from harness.runners.bulk import selection
    from harness.options import Options
    opts = Options(seed=SEED, n=N)
    corpus = opts.open_corpus()
    return opts, corpus, selection.quirk_sample(corpus, selection.pool(corpus), N, SEED)[0]


@pytest.mark.parametrize("mutant", sorted(QUIRKS))
def test_the_default_bulk_sample_catches(mutant, sample):
    from harness.runners.cases.chunk import check_chunk
    from harness.driver.game import Game
    from harness.runners.mutants import MUTANT_ELF_DIR
    from harness.options import ROOT
    from harness.profiles import profile
    elf = os.path.join(MUTANT_ELF_DIR, f"{mutant}.elf")
    if not os.path.exists(elf):
        pytest.skip("needs the mutant ELFs (make -C standin mutants, with gcc-mipsel-linux-gnu)")
    opts, corpus, ids = sample
    check, carries = QUIRKS[mutant]
    hits = [cid for cid in ids if carries(corpus.chunk(cid) if mutant in OBJECT_QUIRKS else corpus.chunk(cid).anime)]
    assert hits, f"the seed-{SEED} N={N} sample has no chunk for {mutant}"
    prof = profile(opts.profile)
    caught = []
    for cid in hits:            # the bulk's own draws of tracks and times decide
        ch = corpus.chunk(cid)
        bad = check_chunk(Game(elf, "hw"), ch, opts.context(cid), prof, only=[check])
        if any(m["check"] == check for m in bad["mismatches"]):
            caught.append(cid)
            good = check_chunk(Game(os.path.join(ROOT, "standin", "standin.elf"), "hw"), ch, opts.context(cid),
                               prof, only=[check])
            assert not good["mismatches"] and not good["error"], (cid, good["mismatches"][:1], good["error"])
        if len(caught) == 2:
            break
    assert caught, f"{mutant} passes all {len(hits)} chunks of the sample that carry the quirk"
    print(f"\n{mutant}: caught by {check} on {', '.join(caught)} ({len(hits)} carriers in the sample, seed {SEED}, N {N})")
