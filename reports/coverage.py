"""What a run exercised: the quirks of animation-semantics.md and checks.md §10, and counters.

A green night should say what it proved; these are the quirk counter names the report knows
how to explain (the harness may record others; they are shown under their own names).
"""
from __future__ import annotations

from .load import CHECKS

# (quirks member name, label, why it matters)
QUIRKS = [
    ("keys_back_in_time", "keys back in time",
     "a later key with a smaller frame: a never-passed ~2^32 segment and its creep"),
    ("shared_frame_keys", "shared-frame keys", "two keys on one frame: zero-duration segments"),
    ("keys_past_end", "keys past the end", "key frames ≥ N; no rotation final hold"),
    ("final_hold_creep", "final-hold creep", "the pose creeping by angle·t/2^32 after the last key"),
    ("rotation_70_keys", "≥ 70 keys passed", "keyed-rotation drift after many keys (cha2body)"),
    ("loop_resets", "loop resets", "a looping animation whose new time is 0"),
    ("ends", "play-once ends", "_AnimateForward returned 1"),
    ("restarts", "restarts", "an ended play-once animation reset by hand (checks.md §6.2 step 9)"),
    ("zero_steps", "zero steps", "a step of 0 ticks: nothing evaluated"),
    ("sub_frame_steps", "sub-frame steps", "several steps per frame (speed 100)"),
    ("skipped_frames", "skipped frames", "several frames per step (speed 700, big note steps)"),
    ("steps_past_end", "steps past the end", "a step beyond last"),
    ("notes_at_last_frame", "notes at the last frame", "a note at N − 1 of a loop, every pass"),
    ("frame0_notes", "frame-0 notes", "a note under Top 0: never delivered"),
    ("several_notes_per_frame", "several notes in one frame", "delivery order reversed"),
    ("repeated_noteprocess", "repeated NoteProcess", "a second NoteProcess delivers the same"),
    ("single_value_rotations", "single-value rotations", "sceVu0RotMatrix bits, exact"),
    ("negative_uv", "negative U/V", "texture offsets below zero, fixed point and crops"),
    ("extobj_chains", "ExtObj chains", "records naming ExtObj objects, ≥ 2 hops"),
    ("fobj_persisted", "F_Obj persisted poses", "a pose kept across steps with no record"),
    ("morph_rescaled", "rescaled morph targets", "a target scale different from the base's"),
    ("morph_saturation", "morph saturation", "the 16-bit add saturates"),
    ("morph_wrap", "morph wrapping", "the 16-bit difference wraps"),
    ("morph_negative_weight", "negative morph weights", "−0 and −1/8192 set lane_z = −1"),
]


def counter_groups(counters: dict) -> list[tuple[str, list]]:
    """Counters grouped by their check prefix ("playback.steps" -> playback), others last."""
    groups: dict[str, list] = {}
    for name in sorted(counters):
        head = "other"
        for sep in (".", "_", "/", ":", " "):
            h = name.split(sep, 1)[0]
            if h in CHECKS:
                head = h
                break
        groups.setdefault(head, []).append((name, counters[name]))
    order = {c: i for i, c in enumerate(CHECKS)}
    return sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order)))
