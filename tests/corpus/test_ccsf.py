"""CCSF walking and setup chunks (formats.md §2.3-§3.9)."""
import struct

import pytest

from corpus import CorpusError
from corpus.ccsf import BONE, RIGID, SHADOW, SKIN, CcsfFile

from .ccsf_build import (bone_model, ccsf, chunk, rigid_model, shadow_model, texture, u32)

NAMES = ["MDL_a", "MDL_b", "MAT_a", "OBJ_a", "OBJ_x", "OBJ_y", "ANM_a", "MPH_a", "CMP_a", "MDL_c"]


@pytest.mark.parametrize("version", [0x90, 0x92, 0x95, 0x96, 0x100])
def test_texture_end_from_contents_not_declared_size(version):
    """§2.4: the texture's end comes from its mips, its declared size is wrong."""
    f = CcsfFile(ccsf(NAMES, [texture(version, 5, mips=1), texture(version, 3)], version=version), "t")
    tex = [c for c in f.chunks if c.kind == 0x300]
    assert len(tex) == 2 and tex[0].end == tex[1].offset
    assert tex[0].size == (tex[0].end - tex[0].offset - 8) // 4 + 50


def test_model_layouts_and_size_exception():
    """§3.8: rigid (with and without normals/colours/ST), bone, skin, shadow; mtype & 4 declares 15 words too many."""
    verts = [(1, 2, 3), (-4, 5, -6), (7, 8, 9)]
    setup = [rigid_model(1, 0, verts), rigid_model(2, 0x600, verts, scale=0x40000000),
             rigid_model(10, 0x40, verts[:1]),
             bone_model(1, verts, skin_entries=[(1, 1, 1, 0x200), (2, 2, 2, 0x1FF), (3, 3, 3, 0x201)]),
             shadow_model(2, verts, [(0, 1, 2)]), shadow_model(10, [], [])]
    f = CcsfFile(ccsf(NAMES, setup), "t")
    ms = f.model_list
    assert [m.mmats[0].kind for m in ms[:5]] == [RIGID, RIGID, RIGID, BONE, SHADOW]
    assert ms[1].vertex_scale == 0x40000000 and ms[1].mtype == 0x600
    assert ms[0].mmats[0].positions == verts and ms[3].mmats[0].positions == verts
    skin = ms[3].mmats[1]
    assert skin.kind == SKIN and skin.vertex_count == 2 and skin.positions == [(1, 1, 1), (2, 2, 2), (3, 3, 3)]
    assert ms[3].declared_end - ms[3]._end == 4 * 15 * 2
    assert ms[4].mmats[0].index_count == 3 and ms[5].mmats[0].vertex_count == 0
    assert f.models[1] is ms[0]                       # first model per object wins


def test_old_version_masks_mtype():
    """§3.8: mtype & 0xFF below version 0x100 (0x600 is then rigid with colours and ST)."""
    body = struct.pack("<IIHHHhB3x", 1, 0x3F800000, 0x600, 1, 0, 0, 0x70) + u32(0, 0, 1) \
        + struct.pack("<3h", 1, 2, 3) + b"\0\0" + u32(1, 2, 3)
    f = CcsfFile(ccsf(NAMES, [chunk(0x800, body)], version=0x95), "t")
    assert f.model_list[0].mtype == 0 and f.chunks[-1].end == len(f.data)


def test_index_materials_morphers_obj_clump_ext():
    setup = [chunk(0x200, u32(3, 0, 0x3F800000) + struct.pack("<HH", 5, 6)),
             chunk(0x200, u32(3, 0, 0) + struct.pack("<HH", 9, 9)),
             chunk(0x1900, u32(8, 1)),
             chunk(0x100, u32(4, 0, 1, 0)),
             chunk(0x900, u32(9) + struct.pack("<HH", 2, 0) + u32(5, 6)),
             chunk(0xA00, u32(5, 0, 6)), chunk(0xA00, u32(6, 0, 4))]
    f = CcsfFile(ccsf(NAMES, setup, version=0x96), "t")
    assert f.names[1] == "MDL_a" and f.names[10] == "MDL_c" and len(f.names) == 10
    m = f.materials[3]
    assert (m.crop_u, m.crop_v, m.alpha) == (5, 6, 0x3F800000)          # the first one wins (§3.5)
    assert f.morphers == {8: 1} and f.objs[4].shadow == 0 and f.clumps[9] == [5, 6]
    assert f.ext == {5: 6, 6: 4} and f.resolve(5) == 4                   # a two-hop chain (§3.7)


def test_ext_from_setup_section_only():
    """§3.7: ExtObj chunks after the Frame chunk are ignored (and not even allowed in frame mode)."""
    data = ccsf(NAMES, [chunk(0xA00, u32(5, 0, 6))])
    assert CcsfFile(data, "t").ext == {5: 6}
    bad = data[:-12] + chunk(0xA00, u32(6, 0, 4)) + data[-12:]
    with pytest.raises(CorpusError) as e:
        CcsfFile(bad, "t")
    assert e.value.kind == 0xA00 and "frame section" in str(e.value)


def test_walk_errors_name_member_offset_kind():
    good = ccsf(NAMES, [chunk(0x1900, u32(8, 1))])
    cases = [
        (good[:-2], "runs past the end"),
        (good + b"\0\0", "stray bytes"),
        (good[:-12] + u32(0x12340005, 1, 1) + good[-12:], "tag"),
        (good.replace(u32(0xCCCC1900), u32(0xCCCC0700 + 0x99)), "not allowed"),
        (good[:44] + struct.pack("<H", 0x80) + good[46:], "below 0x90"),
        (b"XXXX" + good[4:], "Header"),
    ]
    for data, text in cases:
        with pytest.raises(CorpusError) as e:
            CcsfFile(data, "mem.cmp")
        assert e.value.member == "mem.cmp" and e.value.offset is not None, text
        assert text in str(e.value) and "mem.cmp" in str(e.value)


def test_model_rejects_mtype2_and_overrun():
    body = struct.pack("<IIHHHhB3x", 1, 0x3F800000, 2, 1, 0, 0, 0x70) + u32(0, 0, 0, 0, 0)
    with pytest.raises(CorpusError, match="mtype & 2"):
        CcsfFile(ccsf(NAMES, [chunk(0x800, body)]), "t")
    body = struct.pack("<IIHHHhB3x", 1, 0x3F800000, 0, 1, 0, 0, 0x70) + u32(0, 0, 100000)
    with pytest.raises(CorpusError, match="past the end"):
        CcsfFile(ccsf(NAMES, [chunk(0x800, body)]), "t")


def test_anime_chunks_found_by_walk():
    from corpus.anime import build_anime, obj_track, parse_anime
    a = build_anime(object=7, frames=3, tracks=[obj_track(4, pos=(1, 2, 3))])
    f = CcsfFile(ccsf(NAMES, [a, a]), "t")
    assert [(l, o) for _, l, o in f.anime_chunks] == [(len(a), 7), (len(a), 7)]
    off = f.anime_chunks[1][0]
    assert parse_anime(f.anime_bytes(off, len(a))).tracks[0].object == 4
