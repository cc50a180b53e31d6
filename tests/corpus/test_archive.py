"""DATA.BIN members (formats.md §1.1-1.2), the executable's index tables (§1.3), disc images, ids."""
import os
import shutil
import struct
import subprocess

import pytest

from corpus import CorpusError, open_corpus
from corpus.databin import ArchiveBytes, inflate_member, scan_members

from .ccsf_build import archive, ccsf, chunk, gz_member, u32
from .elf_build import tables_elf


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_scan_finds_sector_aligned_members_and_inflates(tmp_path):
    a, offs = archive([("one.cmp", ccsf(["ANM_a"])), ("two.cmp", ccsf(["OBJ_b"]))])
    arc = ArchiveBytes(write(tmp_path, "D.BIN", a))
    ms = scan_members(arc)
    assert [(m.name, m.offset) for m in ms] == [("one.cmp", offs[0]), ("two.cmp", offs[1])]
    assert inflate_member(arc, ms[0]) == ccsf(["ANM_a"]) and ms[0].usize == len(ccsf(["ANM_a"]))


def test_fextra_and_fcomment_are_skipped(tmp_path):
    g = gz_member("x.cmp", ccsf([]))
    name_end = g.index(b"\0", 10) + 1
    g2 = g[:3] + bytes((0x08 | 0x04 | 0x10,)) + g[4:10] + struct.pack("<H", 3) + b"abc" + g[10:name_end] \
        + b"comment\0" + g[name_end:]
    arc = ArchiveBytes(write(tmp_path, "D.BIN", g2 + bytes(-len(g2) % 2048)))
    m = scan_members(arc)[0]
    assert m.name == "x.cmp" and inflate_member(arc, m) == ccsf([])


@pytest.mark.parametrize("damage, text", [
    (lambda g: g[:len(g) // 2], ("truncated", "CRC32", "corrupt")),
    (lambda g: g[:-8] + struct.pack("<II", 0x1234, struct.unpack("<I", g[-4:])[0]) , "CRC32"),
    (lambda g: g[:-4] + struct.pack("<I", 5), "ISIZE"),
    (lambda g: g + b"\x01", "padding"),
    (lambda g: g[:20] + bytes(b ^ 0xFF for b in g[20:40]) + g[40:], ""),
])
def test_bad_members_raise_corpus_error(tmp_path, damage, text):
    g = damage(gz_member("x.cmp", ccsf(["ANM_a"] * 50)))
    arc = ArchiveBytes(write(tmp_path, "D.BIN", g + bytes(-len(g) % 2048 or 2048)))
    with pytest.raises(CorpusError) as e:
        inflate_member(arc, scan_members(arc)[0])
    assert e.value.kind == "gzip" and e.value.member == "x.cmp" and e.value.offset is not None
    assert any(t in str(e.value) for t in ((text,) if isinstance(text, str) else text))


def test_bad_member_listed_not_dropped(tmp_path):
    """A corrupt member is listed with its reason; the others stay usable."""
    from corpus.anime import build_anime, obj_track
    an = build_anime(object=1, frames=2, tracks=[obj_track(2, pos=(1, 2, 3))])
    a, offs = archive([("good.cmp", ccsf(["ANM_a", "OBJ_a"], [an])), ("bad.cmp", ccsf(["ANM_b"], [an[:-4]]))])
    c = open_corpus(data=write(tmp_path, "D.BIN", a), use_cache=False)
    assert c.chunk_ids() == ["good.cmp::ANM_a"]
    assert [b["member"] for b in c.bad] == ["bad.cmp"] and "bad.cmp" in c.bad[0]["error"]


def test_repeated_names_get_suffixes(tmp_path):
    from corpus.anime import build_anime
    an = build_anime(object=1, frames=1)
    a, _ = archive([("m.cmp", ccsf(["ANM_a"], [an, an, an]))])
    c = open_corpus(data=write(tmp_path, "D.BIN", a), use_cache=False)
    assert c.chunk_ids() == ["m.cmp::ANM_a", "m.cmp::ANM_a#2", "m.cmp::ANM_a#3"]
    with pytest.raises(CorpusError):
        c.chunk("m.cmp::ANM_zz")


def test_index_cache_is_used_and_keyed(tmp_path, monkeypatch):
    from corpus.anime import build_anime
    monkeypatch.setenv("EEDIFF_CACHE", str(tmp_path / "cache"))
    a, _ = archive([("m.cmp", ccsf(["ANM_a"], [build_anime(object=1, frames=1)]))])
    p = write(tmp_path, "D.BIN", a)
    c1 = open_corpus(data=p)
    files = sorted(os.listdir(tmp_path / "cache"))
    assert len(files) == 2 and files[0].endswith(".anime") and files[1].endswith(".json")
    c2 = open_corpus(data=p)
    assert c2._blob is not None and c2.chunk("m.cmp::ANM_a").blob_at == 0
    assert c2.chunk_ids() == c1.chunk_ids() and c2.chunk("m.cmp::ANM_a").anime.frames == 1
    assert c2.chunk("m.cmp::ANM_a").data == c2.file("m.cmp").anime_bytes(c2.chunk("m.cmp::ANM_a").offset,
                                                                         c2.chunk("m.cmp::ANM_a").length)
    a2, _ = archive([("n.cmp", ccsf(["ANM_b"], [build_anime(object=1, frames=1)]))])
    (tmp_path / "D.BIN").write_bytes(a2)
    assert open_corpus(data=p).chunk_ids() == ["n.cmp::ANM_b"]     # the archive changed: rebuilt


def test_tables_round_trip(small_dir, small_manifest, tmp_path):
    """§1.3: the tables of the synthetic archive, read from an ELF, give the same members."""
    elf = write(tmp_path, "x.elf", tables_elf(small_manifest["members"], small_manifest["cate_ofs"]))
    c = open_corpus(data=os.path.join(small_dir, "DATA.BIN"), image=elf, use_cache=False)
    assert [(m.name, m.offset, m.category, m.csize, m.usize) for m in c.members] == \
        [(m["name"], m["offset"], m["category"], m["csize"], m["usize"]) for m in small_manifest["members"]]
    assert len(c.chunk_ids()) == sum(len(m["chunks"]) for m in small_manifest["members"])


@pytest.mark.parametrize("field, text", [("csize", "usize"), ("usize", "usize"), ("name", "points at"),
                                         ("offset", "")])
def test_tables_disagreeing_with_archive(small_dir, small_manifest, tmp_path, field, text):
    ms = [dict(m) for m in small_manifest["members"]]
    m = ms[3]
    if field == "name":
        m["name"] = "zzzz.cmp"
    elif field == "offset":
        m["offset"] += 2048
    else:
        m[field] += 4
    elf = write(tmp_path, "x.elf", tables_elf(ms, small_manifest["cate_ofs"]))
    with pytest.raises(CorpusError) as e:
        open_corpus(data=os.path.join(small_dir, "DATA.BIN"), image=elf, use_cache=False)
    assert e.value.kind in ("index table", "gzip") and text in str(e.value)


@pytest.mark.needs_cross
def test_categories_c_compiles_into_tables(small_dir, tmp_path):
    """categories.c, as the stand-in links it, carries the tables of the archive."""
    gcc = shutil.which("mipsel-linux-gnu-gcc")
    if not gcc:
        pytest.skip("no mipsel-linux-gnu-gcc")
    out = str(tmp_path / "cat.elf")
    subprocess.run([gcc, "-O0", "-nostdlib", "-static", "-Wl,-e,0", "-o", out,
                    os.path.join(small_dir, "categories.c")], check=True)
    c = open_corpus(data=os.path.join(small_dir, "DATA.BIN"), image=out, use_cache=False)
    assert len(c.members) == 30 and {m.category for m in c.members} >= {3, 10, 13}


@pytest.mark.parametrize("exe", ["SLUS_202.67", "SLES_512.34"])
def test_disc_image(small_dir, small_manifest, tmp_path, exe):
    """An ISO 9660 image with DATA/DATA.BIN and SLUS_202.67 opens like the files;
    another executable is found through SYSTEM.CNF's BOOT2 line."""
    pycdlib = pytest.importorskip("pycdlib")
    elf = tables_elf(small_manifest["members"], small_manifest["cate_ofs"])
    data = open(os.path.join(small_dir, "DATA.BIN"), "rb").read()
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=1)
    import io
    cnf = f"BOOT2 = cdrom0:\\{exe};1\nVER = 1.00\n".encode()
    iso.add_fp(io.BytesIO(cnf), len(cnf), "/SYSTEM.CNF;1")
    iso.add_fp(io.BytesIO(elf), len(elf), f"/{exe};1")
    iso.add_directory("/DATA")
    iso.add_fp(io.BytesIO(data), len(data), "/DATA/DATA.BIN;1")
    path = str(tmp_path / "disc.iso")
    iso.write(path)
    iso.close()
    c = open_corpus(disc=path, use_cache=False)
    assert c.image is not None and len(c.members) == 30
    ids = c.chunk_ids()
    assert "xp_flag.cmp::ANM_xpflnut0" in ids
    direct = open_corpus(data=os.path.join(small_dir, "DATA.BIN"), use_cache=False)
    assert ids == direct.chunk_ids()
    assert c.chunk(ids[5]).data == direct.chunk(ids[5]).data
    with pytest.raises(CorpusError):
        open_corpus(disc=os.path.join(small_dir, "DATA.BIN"), use_cache=False)


def test_a_chunks_object_names_come_from_the_index_without_inflating_its_member(tmp_path, monkeypatch):
    """The cached index keeps each member's object names (including a hostile one) beside its
    chunks: a chunk's names are its file's names, read with no member inflated."""
    from corpus import archive as arc_mod
    from corpus.anime import build_anime
    monkeypatch.setenv("EEDIFF_CACHE", str(tmp_path / "cache"))
    a, _ = archive([("m.cmp", ccsf(["ANM_a", "OBJ_\x1b[31mred", "MDL_b"], [build_anime(object=1, frames=1)]))])
    p = write(tmp_path, "D.BIN", a)
    want = open_corpus(data=p).file("m.cmp").names
    assert "OBJ_\x1b[31mred" in want.values()
    c = open_corpus(data=p)
    monkeypatch.setattr(arc_mod, "inflate_member", lambda *a: pytest.fail("a member was inflated"))
    assert c.chunk("m.cmp::ANM_a").names == want


def test_a_members_scene_comes_from_the_index_without_inflating_its_member(tmp_path, monkeypatch):
    """The cached index keeps each member's scene (corpus/objects.py: kinds, parents, clumps, models)
    beside its chunks: the objects and world checks read it with no member inflated, and it is the
    scene the member's setup section gives."""
    from corpus import archive as arc_mod
    from corpus.anime import build_anime
    from corpus.objects import scene

    from .test_scene import NAMES, setup_chunks
    monkeypatch.setenv("EEDIFF_CACHE", str(tmp_path / "cache"))
    names = NAMES + ["ANM_a"]
    a, _ = archive([("m.cmp", ccsf(names, [*setup_chunks(), build_anime(object=len(names), frames=1)]))])
    p = write(tmp_path, "D.BIN", a)
    want = scene(open_corpus(data=p).file("m.cmp"))
    assert want.clumps and want.parents and want.model_nodes
    c = open_corpus(data=p)
    monkeypatch.setattr(arc_mod, "inflate_member", lambda *a: pytest.fail("a member was inflated"))
    assert c.chunk("m.cmp::ANM_a").scene == want


def test_a_setup_section_that_is_no_scene_keeps_the_members_chunks_and_is_named_where_read(tmp_path):
    """A short Obj chunk (formats.md §3.4) is no scene: the member is not a bad member (every other
    check reads its chunks); reading its scene raises the CorpusError naming member and kind."""
    from corpus.anime import build_anime

    from .test_scene import NAMES
    names = NAMES + ["ANM_a"]
    a, _ = archive([("m.cmp", ccsf(names, [chunk(0x100, u32(3)), build_anime(object=len(names), frames=1)]))])
    c = open_corpus(data=write(tmp_path, "D.BIN", a), use_cache=False)
    assert c.chunk_ids() == ["m.cmp::ANM_a"] and c.bad == []
    with pytest.raises(CorpusError) as e:
        c.chunk("m.cmp::ANM_a").scene
    assert e.value.kind == 0x100 and "m.cmp" in str(e.value) and "Obj of 1 words" in str(e.value)
