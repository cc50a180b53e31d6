"""The probe's layout lines: what the loader found in the executable (sections, segments, overlays,
where each required symbol came from) and a finding for anything the retail layout does not lead
one to expect: a required symbol outside `main`, a segment that overlaps the harness's memory.

DECISION: both are warnings here. The probe reports; refusing an executable whose segments overlap
the harness's memory is the loader's business, not the probe's.
"""
from __future__ import annotations

import os
from typing import List, Tuple

from harness.driver import memory_map as mm
from harness.driver import objects
from harness.driver.game import REQUIRED, SHORT

# The memory the harness lays out for itself (executable-abi.md §1.3, checks.md §8.1): everything
# from ccSys up to the top of RAM, stack included.
HARNESS_MEMORY = (mm.SYS, 0x02000000)
HARNESS_PARTS = [(mm.SYS, mm.SCRATCH, "the harness's structures"), (mm.SCRATCH, mm.SCRATCH_END, "the scratch area"),
                 (mm.DATA_BUF, mm.DATA_BUF_END, "the chunk data buffer"), (mm.HEAP, mm.HEAP_END, "the heap"),
                 (mm.HEAP_END, 0x02000000, "the stack")]


def loaded_layout(path, machine_args):
    """The image as the loader reads it, or None when it cannot (the probe reports why elsewhere)."""
    from eemu_ext.loading.elf import load_image
    from eemu_ext.errors import ElfError
    try:
        args = {k: v for k, v in (machine_args or {}).items() if k != "confirm"}
        return load_image(path, **args)
    except (ElfError, OSError):
        return None


def layout_lines(img, path: str) -> Tuple[List[str], List[Tuple[str, str, str]]]:
    """(lines, [(severity, kind, text)]) for the image's layout."""
    lay = getattr(img, "layout", None)
    out = [f"layout of {path}:"]
    if lay is None:
        return out + ["  (the loader recorded no layout)"], []
    findings = []
    for s in lay.sections:
        if not s.alloc and s.role == "other":
            continue
        what = {"main": "the program", "overlay": "overlay", "heap": "heap", "reginfo": "gp"}.get(s.role, "other")
        name = s.name if s.name else f"(unnamed #{s.index}: {s.label} by place)"
        body = "no bytes in the file" if s.nobits else "loaded" if s.loaded else "not loaded"
        out.append(f"  section {name:14s} 0x{s.addr:08x} size 0x{s.size:x}, {body} ({what})")
    for vaddr, filesz, memsz in lay.loads:
        out.append(f"  PT_LOAD 0x{vaddr:08x} file 0x{filesz:x} memory 0x{memsz:x}"
                   + ("  (no bytes: sizes the overlay window)" if not filesz and memsz else ""))
        lo, hi = vaddr, vaddr + max(memsz, filesz)
        if lo < HARNESS_MEMORY[1] and hi > HARNESS_MEMORY[0]:
            parts = [n for a, b, n in HARNESS_PARTS if lo < b and hi > a]
            findings.append(("warn", "segment overlap",
                             f"PT_LOAD 0x{lo:08x}-0x{hi:08x} overlaps the harness's memory 0x{HARNESS_MEMORY[0]:08x}-"
                             f"0x{HARNESS_MEMORY[1]:08x} ({', '.join(parts)}): the harness would overwrite it"))
    ovls = [s.label for s in lay.overlays()]
    if lay.window:
        res = lay.resident
        out.append(f"  overlays: {', '.join(ovls) or 'none'}; window 0x{lay.window[0]:08x}-0x{lay.window[1]:08x}; "
                   + (f"resident {res.name} from {res.path} (0x{res.extent:x} bytes)" if res else
                      "none resident (a data access or fetch there faults)"))
    else:
        out.append(f"  overlays: {', '.join(ovls) or 'none'}; no overlay window")
    n_table = sum(v == "symbol table" for v in lay.source.values())
    n_side = sum(v == "sidecar" for v in lay.source.values())
    out.append(f"  symbols: {n_table} from the symbol table, {n_side} from the sidecar "
               f"{os.path.basename(lay.sidecar) if lay.sidecar else '(none)'}; {len(lay.foreign)} of non-resident overlays")
    out.append("  required symbols:")
    _symbol_lines(img, lay, REQUIRED, SHORT, out, findings)
    # DECISION: a missing anm-object symbol is a warning: the five earlier checks run without them;
    # the objects and world checks stop naming it. Several of these names are the spec's guesses
    # (anim-objects.md §7), which a real executable's sidecar may have to supply.
    out.append("  anm-object symbols (anim-objects.md; called, or hooked: ccObj::Init, ccObj::Draw, ccModel::Draw, "
               "ccEffObj::DrawNoAnm):")
    missing = _symbol_lines(img, lay, objects.REQUIRED, OBJECT_SHORT, out, findings)
    if missing:
        findings.append(("warn", "anm-object symbol missing",
                         f"{', '.join(missing)} not in the symbol table or the sidecar: the objects and world "
                         f"checks cannot run (give them in a sidecar, SYMS=)"))
    return out, findings


OBJECT_SHORT = dict(objects.SHORT, **{objects.OBJ_DRAW: "ccObj::Draw", objects.OBJ_INIT: "ccObj::Init",
                                      objects.MODEL_DRAW: "ccModel::Draw", objects.EFF_DRAW: "ccEffObj::DrawNoAnm"})


def _symbol_lines(img, lay, names, short, out, findings):
    """One line per symbol: address, section and source (symbol table or sidecar); the missing ones."""
    missing = []
    for name in names:
        if name not in img.symbols:
            out.append(f"    {short.get(name, name):30s} missing")
            missing.append(name)
            continue
        home = lay.home.get(name, "?")
        out.append(f"    {short.get(name, name):30s} 0x{img.symbols[name]:08x} in {home}, from the {lay.source.get(name, '?')}")
        if home != "main":
            findings.append(("warn", "symbol outside main",
                             f"{name} (0x{img.symbols[name]:08x}) lies in {home}, not in main, where the retail "
                             f"executable keeps every function and table the harness uses"))
    return missing
