"""The checks of checks.md §2-§7, one module per check, and the registry that runs them.

Every check module has the same face: NAME (the name `--check` selects), applies(anim, prof,
file_ok) (whether the chunk's content calls for it) and run(game, ch, anim, ctx, tally, prof,
rng, speed) (load what it needs, compare machine and reference, record into the tally). A new
check is a new module here plus one entry in MODULES; tests/harness/test_layout.py fails on a
check module the registry does not list.
"""
from harness.checks import controllers, fobj, materials, morph, notes, playback

MODULES = (controllers, materials, playback, notes, morph, fobj)      # the order a chunk runs them
REGISTRY = {m.NAME: m for m in MODULES}
# checks.md §2.3: the multi-step comparison runs inside the controller check; selecting it
# selects that check.
ALIASES = {"multistep": "controllers"}
NAMES = ("controllers", "materials", "multistep", "playback", "notes", "morph", "fobj")   # --check choices


def applicable(anim, prof, file_ok=True):
    """The names of the checks this chunk's content calls for (checks.md §2-§7, §9), in run order."""
    return [m.NAME for m in MODULES if m.applies(anim, prof, file_ok)]
