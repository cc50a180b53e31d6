"""docs/truth.md §2-§3: a model's answer line decodes into one typed structure per query kind
(harness.truth.answers), every field of its type and every word in its range, in one step; a wrong
one is a ModelError naming the chunk, the query (kind and index) and the field. The truth file's
chunk lines are read against their types the same way (harness.truth.fileformat)."""
import base64
import json
import struct

import pytest

from ground.vocabulary import QUERY_KINDS
from harness.truth import answers, fileformat
from harness.truth.protocol import ModelError, checked_answers, decoded

CHUNK = "xd017.cmp::ANM_xd017000"
W = 0x3F800000
# one query of each kind, small, and an answer of the right shape to it
QUERIES = [
    {"kind": "controller", "i": 0, "times": [0, 256], "rotation": "exact"},
    {"kind": "multistep", "i": 1, "deltas": [256]},
    {"kind": "light", "i": 2, "times": [0], "fields": [0, 1]},
    {"kind": "material", "i": 3, "times": [0]},
    {"kind": "playback", "i": 4, "steps": 1, "tracks": [0], "read": [0], "morph_read": [0], "morphers": [5]},
    {"kind": "notes", "i": 5, "plan": [[256, 0]]},
    {"kind": "modify", "i": 6, "base": [[1, 2, 3]]},
    {"kind": "fobj", "i": 7, "plan": [[256, 0]], "read": [[0, [3, 4]]]},
    {"kind": "objects", "i": 8},
    {"kind": "world", "i": 9, "steps": 1, "bounds": [None]},
]
ANSWERS = [
    {"pos": [[W] * 3] * 2, "scale": "u32:" + base64.b64encode(struct.pack("<6I", *[W] * 6)).decode(), "rot": [[W] * 9] * 2, "alpha": [W, W],
     "localtp": [W, W], "passed": [1, 1]},
    {"pos": [W] * 3, "scale": [W] * 3, "rot": [W] * 9, "alpha": W},
    {"words": [[W, W]]},
    {"U": [W], "V": [W], "u": [65535], "v": [0]},
    {"forward": [[256, 0]], "matrix": [[[W] * 12]], "localtp": [[W]], "morph": [[[[3, W]]]]},
    {"forward": [[256, 0]], "notes": [[[1, 2, 1, -1]]]},
    {"vertices": [[-32768, 0, 32767]]},
    {"forward": [[256, 0]], "poses": [[{"matrix": [W] * 12, "localtp": W, "flags": 3}, None]]},
    {"index": [], "entries": [], "parents": [], "claims": [], "node_tables": [], "inits": [], "draws": [],
     "frees": [], "count": 0, "anm_index": 0},
    {"forward": [[256, 0]], "order": [["node", 1]], "world": [[[W] * 16]], "alpha": [[W]], "pose_at": [256]},
]


def line(answers_, chunk=CHUNK):
    return json.dumps({"chunk": chunk, "answers": [{"i": q["i"], "kind": q["kind"], **a}
                                                   for q, a in zip(QUERIES, answers_)]}).encode()


def answered(answers_):
    return checked_answers(CHUNK, QUERIES, decoded(CHUNK, QUERIES, line(answers_)))


def test_every_query_kind_has_its_answer_structure_and_a_good_line_decodes_to_the_dicts_compared():
    assert set(answers.current()) == set(QUERY_KINDS) == {q["kind"] for q in QUERIES}
    with pytest.raises(ImportError, match="toy"):
        answers.structures(dict(QUERY_KINDS, toy="playback"))
    with pytest.raises(ImportError, match="world"):
        answers.structures({k: c for k, c in QUERY_KINDS.items() if k != "world"})
    got = answered(ANSWERS)
    assert [a["kind"] for a in got] == [q["kind"] for q in QUERIES]
    assert got[0]["pos"].shape == (2, 3) and got[0]["scale"].tolist() == [[W] * 3] * 2
    assert "passed" not in got[0]                 # sent, never read (docs/truth.md §3)
    assert got[7]["poses"][0][0]["flags"] == 3 and got[7]["poses"][0][1] is None


def bad(k, **fields):
    out = [dict(a) for a in ANSWERS]
    out[k].update(fields)
    for f, v in fields.items():
        if v is DROP:
            del out[k][f]
    return out


DROP = object()


# ids by position: a kind's name in an id would put the test under `pytest -k notes` and the like
WRONG = [
    (bad(0, pos=[[W] * 3, [W, W, 1 << 32]]), "query controller #0: wrong shape: pos[1][2]: expected int <= 4294967295, "
                                            "found 4294967296"),
    (bad(1, alpha=1.5), "query multistep #1: wrong shape: alpha: expected int, got float, found 1.5"),
    (bad(2, words=DROP), "query light #2: wrong shape: words: no field 'words'"),
    (bad(3, u=[65536]), "query material #3: wrong shape: u[0]: expected int <= 65535, found 65536"),
    (bad(4, morph=[[[[3, "0x3f800000"]]]]), "query playback #4: wrong shape: morph[0][0][0][1]: expected int, got str"),
    (bad(5, notes=[[[1, 2, 1, -(1 << 31) - 1]]]), "query notes #5: wrong shape: notes[0][0][3]: expected int >= -2147483648"),
    (bad(6, vertices=[[0, 0, 32768]]), "query modify #6: wrong shape: vertices[0][2]: expected int <= 32767, found 32768"),
    (bad(7, poses=[[{"matrix": [W] * 12, "localtp": W, "flags": 4}, None]]),
     "query fobj #7: wrong shape: poses[0][0].flags: expected int <= 3, found 4"),
    (bad(7, poses=[[{"matrix": [W] * 12, "flags": 1}, None]]), "query fobj #7: wrong shape: poses[0][0]: no field 'localtp'"),
    (bad(8, count=-1), "query objects #8: wrong shape: count: expected int >= 0, found -1"),
    (bad(9, pose_at="256"), "query world #9: wrong shape: pose_at: expected array, got str"),
    (bad(0, kind="controllr"), "query controller #0: wrong shape: the answer is for query controllr #0"),
]


@pytest.mark.parametrize("answers_, says", WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))])
def test_a_field_of_the_wrong_type_or_range_is_named_with_its_kind_query_and_path(answers_, says):
    with pytest.raises(ModelError) as e:
        answered(answers_)
    assert f"model error: chunk {CHUNK}, {says}" in str(e.value), str(e.value)


def test_the_sizes_the_query_fixes_are_checked_after_the_types():
    with pytest.raises(ModelError, match=r"query controller #0: wrong shape: pos\[1\]: expected a list of 3 words, "
                                         r"got a list of 2"):
        answered(bad(0, pos=[[W] * 3, [W, W]]))
    with pytest.raises(ModelError, match=r"query fobj #7: wrong shape: poses\[0\]: expected 2 objects, got a list of 1"):
        answered(bad(7, poses=[[None]]))


def test_the_line_itself_is_named_before_its_answers():
    with pytest.raises(ModelError, match="the answer line is for chunk other, not this one"):
        decoded(CHUNK, QUERIES, line(bad(0, pos=5), chunk="other"))
    with pytest.raises(ModelError, match="the model answered with an error: this model answers modify queries only"):
        decoded(CHUNK, QUERIES, json.dumps({"chunk": CHUNK, "error": "this model answers modify queries only"}).encode())
    with pytest.raises(ModelError, match="9 answers to 10 queries"):
        decoded(CHUNK, QUERIES, line(bad(0, pos=5)[:9]))
    with pytest.raises(ModelError, match=r'the answer line has no "answers" list'):
        decoded(CHUNK, QUERIES, json.dumps({"chunk": CHUNK, "answers": {"0": 1}}).encode())
    with pytest.raises(ModelError, match="its answer line is not JSON"):
        decoded(CHUNK, QUERIES, b'{"chunk": NaN}')


# -- the truth file's chunk lines ------------------------------------------------------------------
def truth_file(tmp_path, queries, digests=False):
    header = {"format": fileformat.FORMAT, "version": fileformat.VERSION, "image": None, "data": None, "seed": 4,
              "profile": "quick", "float_model": "hw", "checks": [], "chunks": 1}
    if digests:
        header["answers"] = fileformat.DIGESTS
    w = fileformat.Writer(str(tmp_path / "t.jsonl"), header)
    w.chunk({"chunk": CHUNK, "index": 0, "queries": queries})
    w.close()
    return str(tmp_path / "t.jsonl")


def read_all(path):
    header, lines = fileformat.read(path)
    return list(lines)


def test_a_chunk_line_whose_query_is_of_the_wrong_type_is_refused_naming_file_line_chunk_and_field(tmp_path):
    assert [x["chunk"] for x in read_all(truth_file(tmp_path, [{"i": 0, "kind": "notes", "plan": []}]))] == [CHUNK]
    for queries, says in [([{"i": "0", "kind": "notes"}], "queries[0].i (a notes query): expected int, got str, found \"0\""),
                          ([{"i": 0}], "queries[0]: object missing required field kind"),
                          ([{"i": 0, "kind": 7}], "queries[0].kind: expected str, got int, found 7"),
                          ([5], "queries[0]: expected object, got int, found 5")]:
        with pytest.raises(fileformat.TruthFileError) as e:
            read_all(truth_file(tmp_path, queries))
        assert str(e.value) == f"{tmp_path / 't.jsonl'}:2: chunk {CHUNK}: {says}", str(e.value)


def test_a_digest_line_holds_sha256_digests_of_each_query(tmp_path):
    ok = {"i": 0, "kind": "notes", "asked": "a" * 64, "game": "0" * 64}
    assert len(read_all(truth_file(tmp_path, [ok], digests=True))) == 1
    for q, says in [(dict(ok, asked="A" * 64), " query 0: its asked is " + "A" * 40),
                    (dict(ok, game=None), " query 0: its game is None"),
                    ({"i": 0, "kind": "notes", "asked": "a" * 64}, ": queries[0] (a notes query): object missing required field game")]:
        with pytest.raises(fileformat.TruthFileError) as e:
            read_all(truth_file(tmp_path, [q], digests=True))
        assert str(e.value).startswith(f"{tmp_path / 't.jsonl'}:2: chunk {CHUNK}{says}"), str(e.value)
