"""Small DATA.BIN archives for the run-verdict tests, made from members of the synthetic corpus:
renamed (hostile member and object names), truncated, bit-flipped, empty, or a gzip bomb; and the
stand-in with ConvLCNum2ALCNum patched to return at once (`jr ra; nop`)."""
import os
import struct
import zlib

from elftools.elf.elffile import ELFFile

from corpus import open_corpus
from corpus.ccsf import CcsfFile
from harness.driver.game import CONV
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE

SECTOR = 2048
# Small members whose one Anime chunk has object records (controllers, playback).
SMALL = ("eq077.cmp", "eq085.cmp", "eq133.cmp")


def gzip_member(name: bytes, data: bytes, isize=None) -> bytes:
    """One sector-padded gzip member (formats.md §1.1) with FNAME `name`."""
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    isize = len(data) if isize is None else isize
    out = (b"\x1f\x8b\x08\x08" + struct.pack("<I", 0) + b"\x00\x03" + name + b"\x00" + body
           + struct.pack("<II", zlib.crc32(data), isize & 0xFFFFFFFF))
    return out + bytes(-len(out) % SECTOR), len(out)


def rename_objects(data: bytes, names: dict) -> bytes:
    """The CCSF file with object names replaced ({object index: new name bytes, <= 30})."""
    fc = struct.unpack_from("<I", data, 68)[0]
    base = 76 + 32 * fc
    out = bytearray(data)
    for obj, name in names.items():
        assert len(name) <= 30 and b"\0" not in name
        e = base + 32 * obj
        out[e:e + 30] = name.ljust(30, b"\0")
    return bytes(out)


def members(names=SMALL):
    """[(member name, inflated CCSF bytes)] from the synthetic corpus."""
    c = open_corpus(data=DEFAULT_DATA)
    return [(n, c.member_bytes(n)) for n in names]


LAYOUT = {}   # archive path -> [(member name bytes, offset, csize, usize)]


def write_archive(path, parts):
    """Concatenate (FNAME bytes, CCSF bytes) members into an archive at `path`."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    layout, off = [], 0
    with open(path, "wb") as f:
        for name, data in parts:
            g, csize = gzip_member(name, data)
            layout.append((name, off, csize, len(data)))
            f.write(g)
            off += len(g)
    LAYOUT[path] = layout
    return path


MARK = "zzpw"   # every command a hostile name tries to run would create ./zzpw-<letter>


def hostile_archive(path):
    """An archive whose member and object names try to run commands (`';touch X;'`,
    `$(shell touch X)`, `$(...)`, backquotes) and write escape sequences to a terminal.
    Every such command would create ./zzpw-<letter>. Returns (path, [chunk ids])."""
    src = members(SMALL)
    object_names = [[f"';touch {MARK}-a;'\x1b[2J"], [f"\x1b]0;T\x07$(shell touch {MARK}-c)"],
                    [f"`touch {MARK}-d`\n\r\x9b\x08\"\\"]]
    member_names = [f"m';touch {MARK}-f;'.cmp", "\x1b[31mred\x1b[0m.cmp", f"$(shell touch {MARK}-g).cmp"]
    parts = []
    for (name, data), new_member, new_objects in zip(src, member_names, object_names):
        f = CcsfFile(data, member=name)
        rename = {obj: new_objects[i % len(new_objects)].encode("latin-1")
                  for i, (_, _, obj) in enumerate(f.anime_chunks)}
        parts.append((new_member.encode("latin-1"), rename_objects(data, rename)))
    write_archive(path, parts)
    return path, open_corpus(data=path, use_cache=False).chunk_ids()


def small_archive(path, names=SMALL):
    """A healthy archive of a few small members."""
    return write_archive(path, [(n.encode(), d) for n, d in members(names)])


def _file_offset(elf, addr):
    seg = next(s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"
               and s["p_vaddr"] <= addr < s["p_vaddr"] + s["p_filesz"])
    return seg["p_offset"] + addr - seg["p_vaddr"]


def return_at_once_elf(path, symbol=CONV, tables_for=None):
    """The stand-in with `symbol`'s first two instructions replaced by `jr ra; nop`. With
    tables_for=<archive path written here>, its categoryFDTbl/cateCDOfsTbl index that archive
    (formats.md §1.3: every member in category 0, base offset 0), as a real disc's would."""
    data = bytearray(open(DEFAULT_IMAGE, "rb").read())
    with open(DEFAULT_IMAGE, "rb") as f:
        elf = ELFFile(f)
        syms = {s.name: s["st_value"] for s in elf.get_section_by_name(".symtab").iter_symbols()}
        off = _file_offset(elf, syms[symbol])
        data[off:off + 8] = struct.pack("<II", 0x03E00008, 0)      # jr ra; nop
        if tables_for is not None:
            fd = struct.unpack_from("<20I", data, _file_offset(elf, syms["categoryFDTbl"]))
            ofs = _file_offset(elf, syms["cateCDOfsTbl"])
            data[ofs:ofs + 160] = bytes(160)
            for k in range(19):
                at = _file_offset(elf, fd[k])
                recs = LAYOUT[tables_for] if k == 0 else []
                assert k or len(recs) < 7            # category 0 holds 6 records and its end
                for i, (name, moff, cs, us) in enumerate(recs):
                    data[at + 44 * i:at + 44 * i + 44] = struct.pack("<32sIII", name, moff, cs, us)
                data[at + 44 * len(recs):at + 44 * len(recs) + 44] = bytes(44)
    with open(path, "wb") as f:
        f.write(data)
    return path


def bomb_member(path, inflated=1 << 30, block=1 << 20):
    """One member of zeros that inflates to `inflated` bytes (about 1 MiB compressed)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    zero = bytes(block)
    body = bytearray()
    crc = 0
    for _ in range(inflated // block):
        body += c.compress(zero)
        crc = zlib.crc32(zero, crc)
    body += c.flush()
    out = b"\x1f\x8b\x08\x08" + bytes(4) + b"\x00\x03bomb.cmp\x00" + bytes(body) + struct.pack(
        "<II", crc, inflated & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(out + bytes(-len(out) % SECTOR))
    return path
