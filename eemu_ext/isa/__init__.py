"""The R5900 instruction table: one module per instruction group, each exporting ROWS and namespace().

``integer`` (helper A) is always present; ``cop1``/``vu0`` (helper B) and ``mmi`` (helper C) are
gathered when their modules exist, so the table grows as they land.
"""
from __future__ import annotations

import importlib
from typing import Dict, List, Tuple

from .row import Row, OPERAND_FORMATS, fields_of  # noqa: F401  (re-exported)

MODULE_NAMES = ("integer", "cop1", "vu0", "mmi")


def _load() -> Tuple[list, List[Row]]:
    mods, rows = [], []
    for name in MODULE_NAMES:
        full = f"{__name__}.{name}"
        try:
            mod = importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name == full:          # the module is simply not written yet
                continue
            raise
        mods.append(mod)
        rows.extend(getattr(mod, "ROWS", ()))
    return mods, rows


MODULES, ROWS = _load()


def namespace(machine) -> Dict[str, object]:
    """The merged helper names of every module's namespace(machine) (for compiled sem code)."""
    ns: Dict[str, object] = {}
    for mod in MODULES:
        fn = getattr(mod, "namespace", None)
        if fn is not None:
            ns.update(fn(machine) or {})
    return ns
