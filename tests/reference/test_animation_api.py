"""The surface the harness codes against (interfaces.md §3)."""
import numpy as np
import pytest

from corpus import CorpusError
from reference import Animation, morph

from .helpers import ONE, build_anime, keyed, material_track, note, obj_track, one


def chunk():
    return build_anime(object=7, frames=12, loops=True, tracks=[
        obj_track(3, pos=keyed((0, 1.0, 2.0, 3.0), (4, 4.0, 5.0, 6.0)),
                  rot=keyed((0, 0.0, 0.0, 0.0), (6, 10.0, 20.0, 30.0))),
        obj_track(5, rot=one(0.0, 45.0, 0.0)),
        obj_track(3, scale=one(2.0, 2.0, 2.0))],
        materials=[material_track(40, u=one(0.25))], notes=[note(2, 1, 2, 20)])


def test_parse_and_attributes():
    a = Animation.parse(chunk(), names={3: "OBJ_a"}, ext={5: 9}, float_model="trunc")
    assert (a.frames, a.loops, a.last) == (12, True, 11 * 256)
    assert [(t.index, t.object, t.target, t.keyed_rotation) for t in a.tracks] == [
        (0, 3, 3, True), (1, 5, 9, False), (2, 3, 3, False)]
    assert a.tracks[0].record.pos.kind == 2 and a.tracks[0].name == "OBJ_a"
    assert [(m.index, m.material) for m in a.materials] == [(0, 40)]
    assert a.notes[0].event == 1 and a.morphs == {} and a.fobjs == []
    assert a.float_model == "trunc"


def test_pose_fields():
    a = Animation.parse(chunk())
    k = a.pose(0, 300)
    assert k.rot is None and k.rot_keyed and k.rot_matrix.shape == (3, 3)
    assert k.rot_matrix.dtype == np.float64 and len(k.pos) == 3 and isinstance(k.alpha, int)
    s = a.pose(a.tracks[1], 300)
    assert len(s.rot) == 9 and not s.rot_keyed and s.passed == 0
    assert np.allclose(s.rot_matrix, [[0.7071, 0, 0.7071], [0, 1, 0], [-0.7071, 0, 0.7071]], atol=1e-3)
    assert a.pose(2, 300).scale == (0x40000000,) * 3        # each record is its own instance (§5)


def test_local_matrix_kinds():
    a = Animation.parse(chunk())
    assert isinstance(a.local_matrix(0, 300), np.ndarray) and a.local_matrix(0, 300).shape == (4, 4)
    L = a.local_matrix(1, 300)
    assert isinstance(L, tuple) and len(L) == 16 and L[15] == ONE


def test_forward_and_note_objects():
    a = Animation.parse(chunk())
    r = a.forward(256, 256)
    assert (r.time, r.pose_at, r.ended) == (512, 512, False)
    n = a.passed_notes(256, 256)
    assert [(x.frame, x.object, x.event, x.param, x.time) for x in n] == [(2, 20, 1, 2, 1)]


def test_pose_cached_controllers_give_identical_results():
    """Controllers are compiled once per track; asking again (any order) gives the same bits."""
    a = Animation.parse(chunk())
    first = [a.pose(0, t).pos for t in range(0, 3000, 97)]
    assert a.tracks[0]._compiled is not None
    assert [a.pose(0, t).pos for t in range(0, 3000, 97)] == first


def test_bad_chunk_raises_corpus_error():
    with pytest.raises(CorpusError):
        Animation.parse(b"\x00" * 24, where="m::ANM_bad")


def test_unknown_float_model_is_rejected():
    with pytest.raises(ValueError, match="unknown float model"):
        Animation.parse(chunk(), float_model="ieee")


def test_unknown_material_is_named():
    with pytest.raises(KeyError, match="material object 99"):
        Animation.parse(chunk()).uv(99, 0)


def test_morph_is_exported():
    assert morph([(1, 2, 3)], ONE, []) == [(1, 2, 3)]


def test_tracks_and_materials_by_record():
    """pose() accepts a RefTrack, its index or its corpus Track; uv() a RefMaterial, its corpus
    MaterialTrack or the material object."""
    a = Animation.parse(chunk())
    assert a.pose(a.tracks[2].record, 10).scale == a.pose(2, 10).scale == a.pose(a.tracks[2], 10).scale
    assert a.uv(a.materials[0].record, 0) == a.uv(40, 0) == (0x3E800000, 0)


def test_bits_to_doubles_is_bits_to_double_pattern_for_pattern_signed_zeros_and_e255_included():
    import random

    import numpy as np

    from reference.animation import bits_to_doubles
    from reference.eefloat import bits_to_double
    r = random.Random(7)
    words = [r.getrandbits(32) for _ in range(4992)] + [
        0, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0xFFFFFFFF]
    got = bits_to_doubles(np.asarray(words, dtype=np.uint32).reshape(-1, 3))
    want = np.array([bits_to_double(w) for w in words], dtype=np.float64).reshape(-1, 3)
    assert got.shape == want.shape and (got.view(np.uint64) == want.view(np.uint64)).all()
