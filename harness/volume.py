"""The four volumes (volumes.md): which one an executable is, confirmed by GCMN.PRG, or forced.

Every volume's row of volumes.md §1 (corpus/volumes.py: addresses, sizes, GCMN.PRG's size and
FNV-1a-64) with the structure offsets the harness touches (executable-abi.md §5) per volume, is
harness/driver/volumes.py's, which the driver reads for a stripped volume's gp. The volume is detected from
the executable (its overlay window, where the stripped volumes' sections are found by position), then
confirmed by ``GCMN.PRG`` beside it or on the disc as the users' own code does (the size picks a
volume, the hash confirms it). ``VOLUME=`` (``--volume``) forces it; a contradiction is a HarnessError.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Optional

from harness import HarnessError
from harness.driver.volumes import VOLUMES, Volume, from_executable

__all__ = ["VOLUMES", "Volume", "from_executable"]
NAMES = ", ".join(f"{v.key} ({v.name.lower()})" for v in VOLUMES)


def by_name(text: str) -> Volume:
    """'inf', 'INF', 'infection', 'SLUS_202.67' -> the volume; HarnessError otherwise."""
    t = text.strip().lower()
    for v in VOLUMES:
        if t in (v.key, v.name.lower(), v.boot.lower()):
            return v
    raise HarnessError(f"VOLUME={text[:40]!r}: not a volume ({NAMES})")


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def gcmn_size(path: str) -> Optional[Volume]:
    """The volume whose GCMN.PRG has the size of the file at path, or None (a stand-in's own overlay)."""
    size = os.path.getsize(path)
    return next((v for v in VOLUMES if v.gcmn_bytes == size), None)


def from_gcmn(path: str) -> Optional[Volume]:
    """The volume GCMN.PRG at path confirms (its size picks one, its FNV-1a-64 confirms it); None for a
    size no retail volume has (a stand-in's own overlay). HarnessError for a retail size whose hash
    differs."""
    v = gcmn_size(path)
    if v is None:
        return None
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        h = fnv1a64(f.read())
    if h != v.gcmn_fnv:
        raise HarnessError(f"{path}: {size} bytes, {v.name}'s GCMN.PRG size, but its FNV-1a-64 0x{h:016x} is not "
                           f"{v.name}'s 0x{v.gcmn_fnv:016x} (volumes.md §1)")
    return v


@dataclass
class Resolved:
    volume: Volume
    how: str                 # what named it: 'executable', 'VOLUME=', 'executable, GCMN.PRG', ...
    gcmn: Optional[str]      # the GCMN.PRG read, when one was


def resolve(img, image_path: str, forced: Optional[str] = None, gcmn: Optional[str] = None) -> Resolved:
    """The executable's volume: detected from it, confirmed by GCMN.PRG (when given or found beside it
    as DATA/GCMN.PRG), forced by `forced`; a contradiction between any two is a HarnessError."""
    if gcmn is None:
        beside = os.path.join(os.path.dirname(os.path.abspath(image_path)), "DATA", "GCMN.PRG")
        gcmn = beside if os.path.isfile(beside) else None
    found = from_executable(img)
    want = by_name(forced) if forced else None
    by_gcmn = gcmn_size(gcmn) if gcmn else None       # the size picks; a contradiction is named first
    if by_gcmn is not None and (found in (None, by_gcmn)) and (want in (None, by_gcmn)):
        by_gcmn = from_gcmn(gcmn)                      # then the hash confirms
    if found is not None and by_gcmn is not None and found != by_gcmn:
        raise HarnessError(f"{gcmn}: the GCMN.PRG of {by_gcmn.name}, but {image_path} is {found.name}'s executable "
                           f"(overlay window 0x{found.window:08x})")
    if want is not None:
        for other, what in ((found, f"{image_path} is {found.name if found else ''}'s executable"),
                            (by_gcmn, f"{gcmn} is {by_gcmn.name if by_gcmn else ''}'s GCMN.PRG")):
            if other is not None and other != want:
                raise HarnessError(f"VOLUME={forced}: {want.name}, but {what}")
    volume = want or found or by_gcmn
    if volume is None:
        # DECISION: an executable whose overlay window is no volume's (or that has no overlay
        # sections) and no GCMN.PRG to say otherwise is taken as Infection, eediff's first volume.
        return Resolved(VOLUMES[0], "default", gcmn)
    how = ", ".join(w for w, v in (("VOLUME=", want), ("executable", found), ("GCMN.PRG", by_gcmn)) if v)
    return Resolved(volume, how, gcmn)


_RESOLVED: Dict[tuple, Resolved] = {}


def of_options(opts, unloadable=False) -> Optional[Resolved]:
    """The volume of opts' executable (VOLUME= forcing it; GCMN.PRG beside it, or on the disc for a
    DISC run), resolved once per (image, VOLUME=, disc). An executable the loader refuses is a
    HarnessError, or None with `unloadable` (the probe reports why)."""
    key = (opts.image, getattr(opts, "volume", None), opts.disc if opts.image_from_disc else None)
    if key not in _RESOLVED:
        from eemu_ext.loading.elf import load_image
        from eemu_ext.errors import ElfError
        args = {k: v for k, v in opts.machine_args().items() if k != "confirm"}
        try:
            img = load_image(opts.image, **args)
        except (ElfError, OSError) as exc:
            if unloadable:
                return None
            raise HarnessError(f"IMAGE={opts.image}: {exc}") from None
        gcmn = None
        if opts.disc and opts.image_from_disc:
            from harness.executable import _from_disc
            gcmn = _from_disc(opts.disc, ("/DATA/GCMN.PRG;1", "/DATA/GCMN.PRG"),
                              os.path.join(opts.image + ".DATA", "GCMN.PRG"))
        _RESOLVED[key] = resolve(img, opts.image, getattr(opts, "volume", None), gcmn)
    return _RESOLVED[key]


def identity(opts) -> dict:
    """The volume as a run's and a truth file's header name it; {} for an executable the loader refuses
    (the run's own load names why)."""
    r = of_options(opts, unloadable=True)
    if r is None:
        return {}
    return {"volume": r.volume.key, "volume_name": r.volume.name, "volume_from": r.how}


def volume_lines(r: Resolved) -> list:
    """The probe's lines naming the volume and its row (volumes.md §1)."""
    v = r.volume
    src = r.how + (f"; GCMN.PRG {r.gcmn}" if r.gcmn else "; no GCMN.PRG")
    if r.gcmn and "GCMN.PRG" not in r.how:
        src += " (no volume's size: it confirms nothing)"
    return [f"  volume {v.label}, from {src}",
            f"  volume row: gp 0x{v.gp:08x}, overlay window 0x{v.window:08x}, heap 0x{v.heap:08x}, main 0x{v.main_size:x} "
            f"bytes, categoryFDTbl 0x{v.category_fd:08x}, cateCDOfsTbl 0x{v.cate_cd_ofs:08x}, {v.records} records; "
            f"structure offsets: {len(v.offsets)}, Infection's"]
