"""A tiny CCSF writer for tests, written from formats.md §2-3 (independent of the generator)."""
import struct
import zlib

T = 0xCCCC0000


def u32(*w):
    return struct.pack(f"<{len(w)}I", *[x & 0xFFFFFFFF for x in w])


def chunk(kind, payload, tag=T, declared=None):
    return u32(tag | kind, len(payload) // 4 if declared is None else declared) + payload


def header(version=0x100, name=b"test"):
    return chunk(1, b"CCSF" + name.ljust(32, b"\0") + struct.pack("<HH", version, 0) + u32(0, 1, 0))


def index(names, files=("", " test.max")):
    fe = b"".join(f.encode().ljust(32, b"\0") for f in files)
    oe = b"".join(n.encode().ljust(30, b"\0") + struct.pack("<H", 1 if n else 0) for n in [""] + list(names))
    return chunk(2, u32(len(files), len(names) + 1) + fe + oe)


def texture(version, data_words=4, mips=0, extra=50):
    ph = u32(1, 2) + (u32(0) if version >= 0x92 else b"")
    ph += bytes((0x13, 0, mips, 0)) + u32(0x80008) if version >= 0x90 else u32(0)
    blocks = b"".join(u32(0, data_words) + bytes(4 * data_words) for _ in range(mips + 1))
    body = ph + blocks
    return chunk(0x300, body, declared=len(body) // 4 + extra)


def rigid_model(obj, mtype, verts, scale=0x3F800000, flag=0):
    body = struct.pack("<IIHHHhB3x", obj, scale, mtype, 1, flag, 0, 0x70)
    body += u32(0, 0, len(verts))
    pos = b"".join(struct.pack("<3h", *v) for v in verts)
    body += pos + b"\0" * (-len(pos) % 4)
    n = len(verts)
    for bit in (0x40, 0x200, 0x400):
        if not mtype & bit:
            body += u32(*([7] * n))
    return chunk(0x800, body)


def bone_model(obj, verts, skin_entries=None):
    """mtype 4: one bone mmat, plus one skin mmat when skin_entries ((x,y,z,w), ...) is given."""
    mm = 2 if skin_entries else 1
    body = struct.pack("<IIHHHhB3x", obj, 0x3F800000, 4, mm, 1, 0, 0x70)
    n = len(verts)
    pos = b"".join(struct.pack("<3h", *v) for v in verts)
    body += u32(0, n, 0) + u32(0) + pos + b"\0" * (-len(pos) % 4) + u32(*([1] * n)) + u32(*([2] * n))
    if skin_entries:
        on = len(skin_entries)
        st = sum(1 for e in skin_entries if e[3] & 0x200)
        body += u32(0, st, on) + b"".join(struct.pack("<3hH", *e) for e in skin_entries)
        body += u32(*([3] * on)) + u32(*([4] * st))
    return chunk(0x800, body, declared=len(body) // 4 + 15 * mm)


def shadow_model(obj, verts, tris):
    body = struct.pack("<IIHHHhB3x", obj, 0x3F800000, 8, 1, 0, 0, 0x70)
    body += struct.pack("<ii", len(verts), 3 * len(tris))
    if verts:
        pos = b"".join(struct.pack("<3h", *v) for v in verts)
        body += pos + b"\0" * (-len(pos) % 4) + b"".join(struct.pack("<3i", *t) for t in tris)
    return chunk(0x800, body)


def ccsf(names, setup=(), version=0x100, frame=()):
    out = header(version) + index(names) + chunk(3, u32(0), tag=0)
    out += b"".join(setup)
    out += chunk(5, u32(1))
    out += b"".join(frame) + chunk(0xFF01, u32(0xFFFFFFFF))
    return out


def gz_member(name, data, mtime=1000000000, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    head = b"\x1f\x8b\x08\x08" + struct.pack("<I", mtime) + b"\0\3" + name.encode() + b"\0"
    return head + body + struct.pack("<II", zlib.crc32(data), len(data))


def archive(members):
    """(bytes, offsets): members sector aligned, 1..2047 zero bytes of padding each."""
    out = bytearray()
    offs = []
    for name, data in members:
        offs.append(len(out))
        g = gz_member(name, data)
        out += g + bytes(-len(g) % 2048 or 2048)
    return bytes(out), offs
