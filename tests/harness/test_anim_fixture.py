"""The users' animation fixture from the game's answers (docs/spec/fixtures.md §1), on a few chunks
of the bundled synthetic corpus.

Each test is a paragraph of the spec: every line reads back by its kind's encodings (a reader
written from the spec alone); every record kind is written; rows written from the built-in
reference are the game-written rows, but for the reference-only ones; keyed rotations are the
reference's and said so; the blend hash is FNV-1a-64 of the s16 bytes; the uv words follow the
worked check; the notes lines chain; a file short of the reader's minimum counts is not green.
"""
import copy
import struct

import pytest

from harness.__main__ import main
from harness.checks import parse_reference
from harness.options import Options
from harness.runners.truth_runs import fixture_export
from harness.truth import fixture
from harness.truth.queries import chunk_line
from reference.animation import texture_offset
from reference.serve import answer

from . import anim_fixture_reader as reader
from .models import CHUNKS


def opts_for(chunks=CHUNKS):
    return Options(seed=4, profile="nightly", chunk_ids=list(chunks))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("fixture")
    out = {}
    for source in ("game", "reference"):
        path = str(d / f"{source}.txt")
        n, errors, per, notes, agree = fixture_export.export(opts_for(), path, source, progress=None)
        assert (n, errors) == (len(CHUNKS), [])
        out[source] = (open(path, encoding="ascii").read(), per, notes, agree)
    return out


def test_every_line_reads_back_by_its_kinds_encodings_and_every_kind_is_written(written):
    text, per, notes, _ = written["game"]
    records = reader.read(text)
    kinds = {}
    for r in records:
        kinds[r[0]] = kinds.get(r[0], 0) + 1
    assert kinds == {k: v for k, v in per.items() if v}
    assert set(kinds) == set(fixture.KINDS), kinds
    assert sum(len(r[-1]) for r in records if r[0] == "notes") == notes > 0
    lines = text.split("\n")
    # seven comment lines first: the file's and one per record kind
    assert all(x.startswith("#") for x in lines[:7]) and not lines[7].startswith("#")
    assert text.endswith("\n") and text.isascii()


def test_the_reader_refuses_a_line_the_spec_does_not_allow(written):
    text = written["game"][0]
    pose = next(x for x in text.split("\n") if x.startswith("pose "))
    w = pose.split(" ")
    for bad in (" ".join(w[:6] + [w[6][:7]] + w[7:]),              # a 7-digit float word
                pose.replace("pose ", "posse ", 1),                  # an unknown kind
                " ".join(w[:-1])):                                   # a missing rotation element
        with pytest.raises(reader.FixtureFormatError):
            reader.read(bad + "\n")


def test_rows_written_from_the_reference_are_the_game_written_rows(written):
    game, ref = written["game"][0].split("\n"), written["reference"][0].split("\n")
    assert game[0] != ref[0] and "the game's answers" in game[0]      # the file's comment says whose
    assert game[1:] == ref[1:]
    # and one export says so itself: its rows against the other side's
    for source in ("game", "reference"):
        agree = written[source][3]
        assert agree.differ == 0 and agree.first_differences == []
        assert sum(agree.same.values()) == sum(written[source][1].values()) > agree.reference_only > 0


def test_the_game_is_asked_only_the_checks_whose_queries_make_rows():
    """The objects, world and F_Obj queries make no fixture row, so the export does not ask them."""
    assert fixture_export.asked_checks() == ["controllers", "materials", "playback", "notes", "morph"]
    assert fixture_export.asked_checks(["notes", "world"]) == ["notes"]
    assert set(fixture_export.ROW_KINDS) == {"controller", "material", "playback", "modify", "notes"}


def test_a_check_selection_that_makes_no_row_is_refused_before_the_game_is_asked(tmp_path):
    """CHECK=world alone would leave the selection empty, and an empty one must not mean every check."""
    from harness import HarnessError
    with pytest.raises(HarnessError, match="CHECK=world: no fixture row comes from that check"):
        fixture_export.export(Options(seed=4, profile="nightly", chunk_ids=list(CHUNKS), checks=["world"]),
                              str(tmp_path / "f.txt"), progress=None)
    assert not (tmp_path / "f.txt").exists() and not (tmp_path / "f.txt.partial").exists()


def test_a_game_word_changed_shows_as_a_differing_row():
    """The comparison above can fail: one bit of one game word changes exactly its rows."""
    from harness.runners.truth_runs import truth_export
    opts = opts_for()
    truth_export._init(opts)
    game = opts.validate_image()
    ch = truth_export._W["corpus"].chunk(CHUNKS[0])
    anim = parse_reference(ch, opts.float_model)
    queries = chunk_line(game, ch, 0, opts, truth_export._W["prof"], None, anim=anim)["queries"]
    ref = answer(ch.data, ch.ext, opts.float_model, queries, where=ch.id)
    before = fixture.chunk_rows(ch.id, anim, queries, ref, "game")
    assert before == fixture.chunk_rows(ch.id, anim, queries, ref, "reference")
    broken = copy.deepcopy(queries)
    q = next(q for q in broken if q["kind"] == "controller" and q["times"])
    q["game"]["pos"][0][0] ^= 1
    after = fixture.chunk_rows(ch.id, anim, broken, ref, "game")
    diff = [(a.text, b.text) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and len(diff) == 1 and diff[0][0].startswith("pose ")
    # the export's own comparison of the two sides names that row
    agree = fixture.agreement(after, fixture.chunk_rows(ch.id, anim, broken, ref, "reference"))
    assert agree.differ == 1 and agree.first_differences[0].startswith(diff[0][1][:160])


def test_keyed_rotations_are_the_references_and_the_file_says_so(written):
    text = written["game"][0]
    assert "Keyed rotations" in text.split("\n")[1] and "option 1" in text
    head, sep, tail = text.partition("\n# reference-only: ")
    assert sep, "the chunks hold keyed rotations: their pose lines come under a reference-only comment"
    later = [x for x in tail.split("\n")[1:] if x]
    assert later and all(x.startswith("pose ") for x in later)
    assert not any(x.startswith("#") for x in head.split("\n")[8:])


def test_a_blend_hash_is_fnv1a64_of_the_little_endian_s16_positions():
    verts = [(1, -2, 32767), (-32768, 0, 300)]
    h = 0xcbf29ce484222325
    for b in struct.pack("<6h", *[x for v in verts for x in v]):
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    assert fixture.fnv1a64(verts) == f"{h:016x}"
    assert fixture.fnv1a64([]) == "cbf29ce484222325"


def test_uv_words_follow_the_specs_worked_check():
    anim_ops = parse_reference(_any_chunk(), "hw").ops
    assert texture_offset(0x3f428f5c, 0x1234, anim_ops) == 0xF9F4
    assert texture_offset(0x3f800000, 0xFEDC, anim_ops) == 0x1124


def _any_chunk():
    from harness.runners.truth_runs import truth_export
    truth_export._init(opts_for())
    return truth_export._W["corpus"].chunk(CHUNKS[0])


def test_note_lines_chain_from_0_and_each_step_starts_where_the_last_ended_or_at_0(written):
    by_anim = {}
    for r in reader.read(written["game"][0]):
        if r[0] == "notes":
            by_anim.setdefault((r[1], r[2]), []).append(r)
    assert by_anim
    for lines in by_anim.values():
        assert lines[0][3] == 0
        for a, b in zip(lines, lines[1:]):
            assert b[3] in (a[5], 0)


def test_a_file_short_of_the_readers_minimum_counts_is_written_but_not_green(tmp_path, capsys):
    out = tmp_path / "short.txt"
    status = main(["truth", "--format", "anim-fixture", "--chunks", CHUNKS[0], "--profile", "nightly",
                   "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and "below the reader's minimum counts" in err
    missed = reader.minimum_counts_missed(reader.read(out.read_text()))
    assert missed and all(m.split()[0] in err for m in missed)
