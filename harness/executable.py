"""The executable's companions: the symbol sidecar and the resident overlay a run loads with it.

IMAGE= takes a stripped volume with SYMS= (default ``<IMAGE>.syms`` when it exists, which the
loader finds by itself); ``--overlay NAME`` makes one overlay resident, read from ``DATA/NAME.PRG``
beside the executable, or from the disc. A DISC run finds the sidecar beside the executable on the
disc when the user put one there.
"""
from __future__ import annotations

import os

from harness import HarnessError

# DECISION: on a disc, the sidecar is the executable's name plus .syms in the root directory, in
# either case, with or without the ISO version suffix.
DISC_SIDECARS = ("/SLUS_202.67.SYMS;1", "/SLUS_202.67.SYMS", "/SLUS_202.67.syms;1", "/SLUS_202.67.syms")


def machine_args(opts) -> dict:
    """{'syms': path or None, 'overlay': None, a name, or (name, .PRG path), 'confirm': names} for
    Game (load_elf takes all but 'confirm')."""
    from eemu_ext.loading.overlays import OVERLAYS, overlay_name, prg_file_name
    syms = opts.syms
    if syms is not None and not os.path.isfile(syms):
        raise HarnessError(f"SYMS={syms}: no such file")
    if syms is None and opts.disc and opts.image_from_disc:
        syms = _from_disc(opts.disc, DISC_SIDECARS, opts.image + ".syms")
    overlay = None
    if opts.overlay:
        name = overlay_name(opts.overlay)
        if name is None:
            raise HarnessError(f"--overlay {opts.overlay!r}: not an overlay "
                               f"({', '.join(o[:-4] for o in OVERLAYS)})")
        overlay = name
        if opts.disc and opts.image_from_disc:
            want = prg_file_name(name)
            prg = _from_disc(opts.disc, (f"/DATA/{want};1", f"/DATA/{want}"),
                             os.path.join(opts.image + ".DATA", want))
            if prg is None:
                raise HarnessError(f"DISC={opts.disc}: --overlay {name}: no /DATA/{want} on the disc")
            overlay = (name, prg)
    return {"syms": syms, "overlay": overlay, "confirm": tuple(getattr(opts, "confirm", ()))}


def refuse_carried(img, names, confirmed) -> None:
    """A HarnessError for the first of `names` (what the harness calls or stubs) whose sidecar row was
    carried by a pass with a measured error rate (its `how` neither exact nor call, volumes.md §2 and
    §7.2), unless it is confirmed. DECISION: a row without `how` is taken as given (the column is
    optional); ccSys, which the harness wires, counts with the functions."""
    from eemu_ext.loading.layout import SIDECAR
    from eemu_ext.loading.sidecar import TRUSTED_HOWS
    lay = getattr(img, "layout", None)
    if lay is None:
        return
    for name in names:
        how = lay.hows.get(name)
        if lay.source.get(name) == SIDECAR and how is not None and how not in TRUSTED_HOWS and name not in confirmed:
            raise HarnessError(f"{lay.origin(name)}: {name} was carried by the '{how}' pass, which has a measured "
                               f"error rate (volumes.md §2); the harness calls or stubs it, so it is refused "
                               f"unless confirmed (CONFIRM={name})")


def _from_disc(disc, paths, out):
    """Extract the first of `paths` on the disc to `out` (once); its path, or None."""
    if os.path.isfile(out):
        return out
    from corpus import CorpusError
    from corpus.archive import read_disc_file
    try:
        raw = read_disc_file(disc, paths)
    except CorpusError as exc:
        raise HarnessError(f"DISC={disc}: {exc}") from exc
    if raw is None:
        return None
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(raw)
    os.replace(tmp, out)
    return out
