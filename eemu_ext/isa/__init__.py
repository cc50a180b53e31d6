"""The R5900 instruction table: one module per instruction group, each exporting ROWS and namespace().

``integer`` (the core), ``cop1`` (the FPU), ``vu0`` (VU0 macro mode) and ``mmi`` (the multimedia
instructions and SA); each is imported directly, so a missing one is an ImportError here.
"""
from __future__ import annotations

from typing import Dict, List

from eemu_ext.isa.row import Row, OPERAND_FORMATS, fields_of  # noqa: F401  (re-exported)

from eemu_ext.isa import cop1, integer, mmi, vu0  # noqa: E402  (after the row types they build on)

MODULES = (integer, cop1, vu0, mmi)
ROWS: List[Row] = [row for mod in MODULES for row in mod.ROWS]


def namespace(machine) -> Dict[str, object]:
    """The merged helper names of every module's namespace(machine) (for compiled sem code)."""
    ns: Dict[str, object] = {}
    for mod in MODULES:
        ns.update(mod.namespace(machine) or {})
    return ns
