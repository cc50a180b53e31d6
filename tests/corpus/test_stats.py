"""`python -m corpus stats` on the synthetic archive reproduces the disc's figures (corpus-stats.md),
and every synthetic chunk parses back to the generator's intended records."""
import re
import json
import os
import subprocess
import sys

import pytest

from corpus.anime import parse_anime
from corpus.synth.content import digest, normalized

DISC = {
    # §1
    "members": 1023, "size": 136_665_088, "compressed_bytes": 135_599_928,
    "inflated_bytes": 338_646_324, "mtime_range": [973651006, 1030068730], "magic_off_sector": 6,
    "magic_on_sector_not_member": 0, "header_ok": 1023, "frame_section_empty": 1023,
    "versions_0x100": 999, "versions_other": 24,
    "categories": dict(zip(("cmn", "gcmn", "demo", "desktop", "toppage", "menu", "effect", "equip", "skill",
                            "spc", "pc", "npc", "gimmick", "enemy", "boss", "town", "field", "dungeon", "event"),
                           (6, 8, 5, 136, 1, 4, 12, 350, 15, 18, 37, 19, 37, 133, 13, 14, 147, 18, 50))),
    # §2
    "prefixes": {"OBJ_": 244_315, "MDL_": 33_661, "MAT_": 11_071, "CMP_": 7_254, "CLT_": 5_538,
                 "TEX_": 4_306, "ANM_": 4_091, "DMY_": 2_529, "HIT_": 2_388, "LGT_": 421, "BLT_": 290,
                 "BOX_": 237, "MPH_": 233, "EFF_": 171, "CAM_": 20, "FBR_": 2, "PAG_": 1},
    # §3
    "anime_chunks": 4091, "play_once": 3138, "loops": 953, "chunks_all_tops": 4091, "tops": 190_663,
    "frames_total": 186_572, "object_records_not_under_top0": 0,
    "records": {"0xFF01": 190_663, "0x0102": 229_107, "0x1901": 11_086, "0x0601": 17_764,
                "0x0502": 4_956, "0x0101": 3_388, "0x0108": 2_697, "0x0609": 251, "0x0202": 216,
                "0x0603": 162, "0x0605": 7, "0x0607": 1},
    "fobj_files": ["eex1.cmp", "eii1.cmp", "elgx.cmp", "xddesk01.cmp"], "material_record_files": 21,
    # §5
    "chunks_with_notes": 944, "note_chunks_looping": 171,
    "notes_by_event": {"0x2": 1976, "0x8005": 487, "0x8003": 175, "0x8002": 57, "0x3": 2},
    "frames_with_several_notes": 466, "notes_at_last_frame": 16,
    "notes_at_frame0": ["ecm1.cmp::ANM_ecm1mag0", "eug1.cmp::ANM_eug1dwn0", "eugz.cmp::ANM_eugzdwn0"],
    "notes_out_of_order": 0, "notes_not_xnote": 0,
    # §6
    "morpher_chunks": 233, "morph_targets": 835, "morph_targets_named_in_file": 820,
    "weights_outside_0_8": 0, "materials": 11_071, "nonzero_crops": 218, "models": 17_254,
    "mmats": {"rigid": 16_407, "shadow": 3_129, "bone": 2_994, "skin": 185},
    "vertices": 5_417_645, "triangles": 2_819_008,
    "model_flags": {"0": 9_990, "1": 532, "9": 266, "8": 136, "10": 82, "3": 3, "2": 1},
    "model_unknown_not_0x70": 0,
    # §8
    "lights": {"0x0603": 162, "0x0605": 7, "0x0607": 1, "0x0609": 251},
}


@pytest.fixture(scope="module")
def figures(full_dir):
    """The census exactly as `python -m corpus stats DATA.BIN --json` prints it."""
    out = subprocess.run([sys.executable, "-m", "corpus", "stats", os.path.join(full_dir, "DATA.BIN"), "--json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_every_disc_figure(figures):
    got = dict(figures)
    v = got.pop("versions")
    got["versions_0x100"] = v.get("0x100", 0)
    got["versions_other"] = sum(n for k, n in v.items() if k != "0x100")
    assert {"0x90", "0x92", "0x95", "0x96"} <= set(v)
    got["notes_at_frame0"] = sorted(got["notes_at_frame0"])
    wrong = {k: (got.get(k), want) for k, want in DISC.items() if got.get(k) != want}
    assert not wrong, wrong
    assert figures["bad_members"] == []


def test_quirks_in_realistic_proportion(figures):
    """corpus-stats.md §4, §9: every quirk present, the rare ones rare."""
    c = figures["controllers"]
    assert 100 <= c["keys_back_in_time"] <= 1500 and c["keys_back_to_0"] > 0
    assert 0 < c["keys_sharing_a_frame"] < 5000 and 0 < c["keys_past_end"] < 5000
    assert c["zero_exponent_values"] > 0 and c["negative_zero_values"] > 0
    assert c["rotation_keys_beyond_180"] > 0 and c["single_rotations_beyond_180"] > 0
    assert c["max_keys_keyed_rotation"] >= 70 and c["keyed_under_2_keys"] == 0
    assert c["scales_not_1"] > 0 and c["scales_above_1"] > 0
    for ch in ("pos", "rot", "scale", "alpha"):
        assert all(c["kinds"].get(f"{ch}:{k}", 0) > 0 for k in (0, 1, 2)), ch
    assert figures["f_morpher_frame0"] == 0 and 0 < figures["weights_above_1"] < 0.1 * 2 * 11086
    assert figures["frames_with_three_notes"] > 0
    assert figures["n_1"] > 0 and figures["n_2_3"] > 0 and figures["n_100_up"] > 0
    assert 0.2 < figures["loops"] / figures["anime_chunks"] < 0.26


def test_round_trip_every_chunk(full_corpus, full_manifest):
    """Every synthetic chunk parses back to exactly the records the generator intended (digests of
    the generator's own model, written by the generator into manifest.json)."""
    bad = []
    n = 0
    for m in full_manifest["members"]:
        for cm in m["chunks"]:
            ch = full_corpus.chunk(cm["id"])
            if digest(normalized(parse_anime(ch.data, ext=ch.ext, where=ch.id))) != cm["digest"]:
                bad.append(cm["id"])
            n += 1
    assert n == 4091 and full_corpus.chunk_ids() == [c["id"] for m in full_manifest["members"] for c in m["chunks"]]
    assert not bad, bad[:10]


def test_cli_json_keys(small_dir):
    out = subprocess.run([sys.executable, "-m", "corpus", "stats", os.path.join(small_dir, "DATA.BIN"), "--json"],
                         capture_output=True, text=True, check=True)
    o = json.loads(out.stdout)
    for k in ("members", "anime_chunks", "loops", "play_once", "chunks_with_notes", "records", "notes_by_event"):
        assert k in o
    assert o["members"] == 30 and o["anime_chunks"] == 55 and "0x0102" in o["records"] and "0x8005" in o["notes_by_event"]


def test_cli_lists_bad_members(tmp_path, small_dir):
    data = bytearray(open(os.path.join(small_dir, "DATA.BIN"), "rb").read())
    data[2048 * 3 + 200] ^= 0xFF           # inside some member's compressed data
    p = tmp_path / "D.BIN"
    p.write_bytes(bytes(data))
    env = dict(os.environ, EEDIFF_CACHE=str(tmp_path / "c"))
    out = subprocess.run([sys.executable, "-m", "corpus", "stats", str(p)], capture_output=True, text=True,
                         env=env)
    assert "== bad members: 1" in out.stdout or "== bad members: 2" in out.stdout
    assert out.returncode == 1 and re.search(r"bad members? in", out.stderr), out.stderr   # bad members: not a success


def test_category_tables_match_the_disc_layout(full_dir, full_manifest):
    """formats.md §1.3: base sectors and record counts per category; categories.c carries them."""
    from corpus.tables import DISC_BASE_SECTORS, DISC_RECORDS, TABLE_SYMBOLS
    assert [o // 2048 for o in full_manifest["cate_ofs"][:19]] == list(DISC_BASE_SECTORS)
    assert all(o % 2048 == 0 for o in full_manifest["cate_ofs"])
    src = open(os.path.join(full_dir, "categories.c")).read()
    for k, sym in enumerate(TABLE_SYMBOLS[:19]):
        assert f"FILELIST {sym}[{DISC_RECORDS[k] + 1}] = {{" in src
    assert "FILELIST directCCSTbl[64];" in src and "FILELIST *categoryFDTbl[20]" in src
    assert "unsigned long long cateCDOfsTbl[20]" in src and '"XASC00.CCS"' in src
