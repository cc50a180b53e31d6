"""What a morph mismatch's context carries of its Modify call: the case's scales and weights, and
the inputs of the vertex that differs (its base triple, and each target's triple, scale and
weight), so a model's author sees them without opening the truth file (docs/truth.md §3.1)."""
from __future__ import annotations


def blend_context(describe: dict, base, base_scale: int, targets, vertex: int) -> dict:
    """`describe` (the case's own description) with the inputs of vertex `vertex`. `targets`:
    [(positions, scale bits, weight bits)]."""
    return dict(describe, base_scale=f"0x{base_scale:08x}", vertex=vertex, base=list(base[vertex]),
                targets=[{"position": list(pos[vertex]) if vertex < len(pos) else None,
                          "scale": f"0x{sc:08x}", "weight": f"0x{w:08x}"} for pos, sc, w in targets])
