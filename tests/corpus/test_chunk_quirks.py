"""Each chunk's quirk classes are the census's quirk counters asked of one chunk (corpus-stats.md
§4-§7): a chunk carries a class when the census would count at least one of it there. The table
of every chunk is worked out once per archive and kept beside the corpus index."""
import json

from corpus import chunk_quirks
from corpus.anime import Bits, build_anime, fobj, keyed, material_track, morph, note, obj_track, one, parse_anime
from corpus.chunk_quirks import CLASSES, quirk_classes


def classes(**kw):
    kw.setdefault("object", 1)
    kw.setdefault("frames", 10)
    return quirk_classes(parse_anime(build_anime(**kw)))


def test_a_plain_chunk_carries_no_quirk():
    assert classes(tracks=[obj_track(2, pos=(1.0, 2.0, 3.0))]) == frozenset()


def test_two_object_records_for_one_object_are_several_records_one_object():
    """animation-semantics.md §5: several records for one object are separate instances."""
    assert "several_records_one_object" in classes(tracks=[obj_track(2, pos=(1.0, 0, 0)),
                                                           obj_track(2, pos=(2.0, 0, 0))])
    assert "several_records_one_object" not in classes(tracks=[obj_track(2), obj_track(3)])


def test_key_quirks_follow_the_census_rules():
    back = keyed((0, 0.0, 0.0, 0.0), (6, 1.0, 1.0, 1.0), (6, 2.0, 2.0, 2.0), (0, 3.0, 3.0, 3.0), (12, 0, 0, 0))
    got = classes(tracks=[obj_track(2, pos=back)])
    assert {"keys_back_in_time", "keys_back_to_0", "keys_sharing_a_frame", "keys_past_end"} <= got
    late = classes(materials=[material_track(3, u=keyed((2, 0.5), (5, 9.0)))])
    assert {"late_first_key", "material_records", "uv_wrapping"} <= late


def test_value_quirks():
    got = classes(tracks=[obj_track(2, pos=one(Bits(1), Bits(0x80000000), 0.0), rot=(200.0, 0, 0),
                                    scale=(2.0, 1.0, 1.0), alpha=1.5)])
    assert {"zero_exponent_values", "negative_zero_values", "single_rotations_beyond_180",
            "scales_above_1", "alpha_outside_0_1"} <= got


def test_note_morph_and_fobj_quirks():
    got = classes(loops=True, notes=[note(9, 2, 0, 5), note(4, 2, 0, 5), note(4, 3, 0, 5), note(0, 2, 1, 5)],
                  morphs=[morph(0, 6, [(7, 0.5)]), morph(1, 6, [(7, 8.5)]), morph(2, 6, [(7, 1.5)])],
                  fobjs=[fobj(1, 8, pos=(Bits(1), Bits(0x80000000), 0.0), scale=(2.0, 2.0, 2.0), alpha=3.0)])
    assert {"loops", "notes_at_last_frame", "notes_at_frame0", "frames_with_several_notes", "notes_in_loops",
            "morph_weights_8_up", "morph_weights_above_1", "f_morpher_frame0", "fobj_records",
            "zero_fobj_positions", "fobj_scale_not_1", "fobj_alpha_outside_0_1"} <= got
    assert "frames_with_three_notes" not in got
    nonzero = classes(fobjs=[fobj(1, 8, pos=(0.0, 0.0, 7.75))])
    assert "zero_fobj_positions" not in nonzero


def test_every_class_named_is_one_of_the_listed_classes():
    got = classes(frames=1, tracks=[obj_track(2, pos=one(Bits(1), 0, 0)), obj_track(2)])
    assert got <= set(CLASSES) and {"n_1", "several_records_one_object"} <= got


class _Chunk:
    def __init__(self, data):
        self.data = data

    @property
    def anime(self):
        return parse_anime(self.data)


class _Corpus:
    """The corpus face quirks_by_chunk reads: chunk ids, chunks, and a place beside the index."""

    def __init__(self, chunks, side):
        self._chunks, self._side, self.parsed = chunks, side, 0

    def chunk_ids(self):
        return list(self._chunks)

    def chunk(self, cid):
        self.parsed += 1
        return _Chunk(self._chunks[cid])

    def side_path(self, suffix):
        return self._side + suffix


def test_the_table_is_kept_beside_the_index_and_rebuilt_when_stale(tmp_path):
    two = build_anime(object=1, frames=5, tracks=[obj_track(2), obj_track(2)])
    plain = build_anime(object=1, frames=5, tracks=[obj_track(2)])
    c = _Corpus({"a::ANM_a": two, "a::ANM_b": plain}, str(tmp_path / "index"))
    first = chunk_quirks.quirks_by_chunk(c)
    assert first == {"a::ANM_a": frozenset({"several_records_one_object"}), "a::ANM_b": frozenset()}
    assert c.parsed == 2
    again = _Corpus(c._chunks, c._side)               # another process: read from the file
    assert chunk_quirks.quirks_by_chunk(again) == first and again.parsed == 0
    grown = _Corpus(dict(c._chunks, **{"a::ANM_c": two}), c._side)   # a table of other chunks: rebuilt
    assert chunk_quirks.quirks_by_chunk(grown)["a::ANM_c"] == first["a::ANM_a"] and grown.parsed == 3
    path = tmp_path / f"index.quirks{chunk_quirks.CACHE_VERSION}.json"
    assert set(json.loads(path.read_text())["quirks"]) == {"a::ANM_a", "a::ANM_b", "a::ANM_c"}
