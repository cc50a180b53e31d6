"""`python -m reference show`: the reviewer's view of one chunk at one time."""

import pytest

from reference.__main__ import main

from .helpers import build_anime, keyed, material_track, morph, note, obj_track, one


@pytest.fixture
def chunk(tmp_path):
    b = build_anime(object=7, frames=10, loops=False, tracks=[
        obj_track(3, pos=keyed((0, 0.0, 0.0, 0.0), (4, 4.0, 0.0, 0.0)), rot=one(0.0, 0.0, 0.0))],
        materials=[material_track(40, u=one(0.5))],
        notes=[note(5, 2, 2, 20), note(5, 0x8005, 1, 20)], morphs=[morph(1, 11, [(12, 0.5)])])
    p = tmp_path / "chunk.bin"
    p.write_bytes(b)
    return str(p)


def test_show_prints_pose_bits_note_list_and_morph_state(chunk, capsys):
    assert main(["show", chunk, "--time", "1280", "--names", "3=OBJ_body,20=OBJ_xnote"]) == 0
    out = capsys.readouterr().out
    assert "object OBJ_body (3)" in out
    assert "pos    0x40800000 0x00000000 0x00000000   (4, 0, 0)" in out
    assert "rot    single-value" in out
    assert "U 0x3f000000 (0.5)" in out
    assert out.index("event 0x8005") < out.index("event 0x2 ")      # delivery order (§10.4)
    assert "time 4 object OBJ_xnote (20)" in out
    assert "11: 12 x 0x3f000000 (0.5)" in out


def test_show_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="cannot read .*nope.bin"):
        main(["show", str(tmp_path / "nope.bin"), "--time", "0"])


def test_show_bad_chunk_names_the_file(tmp_path):
    p = tmp_path / "bad.bin"
    p.write_bytes(b"\x00" * 30)
    with pytest.raises(SystemExit, match="bad.bin"):
        main(["show", str(p), "--time", "0"])


def test_show_case_reads_the_bundled_corpus_and_names_an_unknown_case(monkeypatch):
    """--case alone reads the bundled corpus (as every other command); --data alone is refused."""
    monkeypatch.delenv("EEDIFF_DATA", raising=False)
    with pytest.raises(SystemExit, match=r"cannot read x::ANM_y from .*build/synth/DATA\.BIN"):
        main(["show", "--case", "x::ANM_y", "--time", "0"])
    with pytest.raises(SystemExit, match="--data needs --case"):
        main(["show", "--data", "DATA.BIN", "--time", "0"])


def test_show_from_the_corpus(request, capsys):
    """--data DATA.BIN --case member::ANM_name reads the chunk, its names and ExtObj map."""
    import os
    data = request.config.getoption("--data")
    if not data or not os.path.exists(data):
        pytest.skip(f"no archive at {data} (make corpus builds it)")
    from corpus import open_corpus
    cid = open_corpus(data=data).chunk_ids()[0]
    assert main(["show", "--data", data, "--case", cid, "--time", "300"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(cid + ": ANM object ") and "time 300 (frame 1 + 44)" in out


def test_show_unknown_case_is_a_clear_error(request):
    import os
    data = request.config.getoption("--data")
    if not data or not os.path.exists(data):
        pytest.skip(f"no archive at {data} (make corpus builds it)")
    with pytest.raises(SystemExit, match="cannot read nope::ANM_x"):
        main(["show", "--data", data, "--case", "nope::ANM_x", "--time", "0"])
