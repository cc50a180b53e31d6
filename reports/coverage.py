"""What a run exercised: the quirks of animation-semantics.md and checks.md §10, and counters.

A green night should say what it proved; these are the quirk counter names the report knows
how to explain (the harness may record others; they are shown under their own names).
"""
from __future__ import annotations

from ground.vocabulary import CHECK_NAMES as CHECKS

# (label, names the harness may record it under — in `quirks` first, else in `counters` —,
#  why it matters). The harness records the spaced names in `counters` and the snake_case ones
#  in `quirks`; either is read.
QUIRKS = [
    ("keys back in time", ("keys back in time", "keys_back_in_time"),
     "a later key with a smaller frame: a never-passed ~2^32 segment and its creep"),
    ("shared-frame keys", ("shared-frame keys", "shared_frame_keys"),
     "two keys on one frame: zero-duration segments"),
    ("keys past the end", ("keys past the end", "keys_past_end"),
     "key frames ≥ N; no rotation final hold"),
    ("keyed rotation tracks", ("keyed_rotation_tracks", "keyed rotation tracks"), "compared within the §3 tolerance"),
    ("rotations with ≥ 70 keys", ("rotations with >= 70 keys", "rotation_70_keys"),
     "keyed-rotation drift after many keys (cha2body)"),
    ("keyed-rotation keys passed", ("keyed_keys_passed", "keyed rotation keys passed"),
     "segments multiplied into the running matrix, summed over compared times"),
    ("single-value rotations beyond 180°", ("single_rotation_beyond_180",
                                            "single-value rotations beyond 180 deg"),
     "the sine defect of sceVu0RotMatrix"),
    ("denormal values", ("denormal_keys", "denormal values"), "the EE reads them as 0"),
    ("negative zero values", ("negative_zero_values", "negative zero values"), "−0 must survive bit for bit"),
    ("exponent-255 values", ("exponent255_values", "exponent-255 values"), "no Inf/NaN on the EE"),
    ("ExtObj tracks", ("extobj_tracks", "ExtObj tracks", "extobj_chains"), "records naming ExtObj objects"),
    ("keyed channels", ("keyed_channels", "keyed channels"), "controllers with keys (kind 2)"),
    ("single-value rotations", ("single_value_rotations", "single-value rotations"),
     "sceVu0RotMatrix bits, compared exactly"),
    ("final-hold creep", ("final_hold_creep",), "the pose creeping by angle·t/2^32 after the last key"),
    ("negative U/V", ("negative_uv",), "texture offsets below zero: fixed point and crops"),
    ("keyed material channels", ("material_keyed_channels",), "keyed U/V records (0x0202)"),
    ("sub-frame steps", ("sub_frame_steps",), "several steps per frame (speed 100)"),
    ("skipped frames", ("skipped_frames",), "several frames per step (speed 700, big note steps)"),
    ("loop resets", ("loop resets", "loop_resets"), "a looping animation whose new time is 0"),
    ("play-once ends", ("ends",), "_AnimateForward returned 1"),
    ("restarts", ("restarts",), "an ended play-once animation reset by hand (checks.md §6.2 step 9)"),
    ("zero steps", ("zero steps", "zero_steps"), "a step of 0 ticks: nothing evaluated"),
    ("steps past the end", ("steps past the end", "steps_past_end"), "a step beyond last"),
    ("notes at the last frame", ("notes at the last frame", "notes_at_last_frame"),
     "a note at N − 1 of a loop, every pass"),
    ("frame-0 notes", ("frame-0 notes (never delivered)", "frame0_notes"),
     "a note under Top 0: never delivered"),
    ("frames with several notes", ("frames with several notes delivered", "steps with several notes",
                                   "several_notes_per_frame"), "delivery order reversed"),
    ("steps with three or more notes", ("three_notes_steps", "steps with three or more notes"),
     "three notes in one frame (cbu0ski2)"),
    ("repeated NoteProcess", ("repeated NoteProcess", "repeated_noteprocess"),
     "a second NoteProcess delivers the same"),
    ("persisted F_Obj poses", ("persisted F_Obj poses compared", "fobj_persisted"),
     "a pose kept across steps with no record"),
    ("morph states", ("morph states",), "morpher weights after playback steps (frames ≥ 1)"),
    ("rescaled morph targets", ("morph_rescaled",), "a target scale different from the base's"),
    ("negative morph weights", ("morph_negative_weight",), "−0 and −1/8192 set lane_z = −1"),
    ("morph saturation", ("morph_saturation",), "the 16-bit add saturates"),
    ("morph wrapping", ("morph_wrap",), "the 16-bit difference wraps"),
    ("morph weights of 8 and up", ("morph_weight_8_up",),
     "every lane of the weight's fixed point is negative (synthetic: the disc's weights are below 8)"),
]


def coverage_rows(quirks: dict, counters: dict):
    """(label, count or None when the run did not record it, why, source names) per known quirk,
    then every other recorded quirk under its own name."""
    used = set()
    rows = []
    for label, names, why in QUIRKS:
        value = None
        for src in (quirks, counters):
            hits = [n for n in names if n in src]
            if hits:
                value = sum(src[n] for n in hits)
                used.update(n for n in hits if src is quirks)
                break
        rows.append((label, value, why))
    for name in sorted(quirks):
        if name not in used:
            rows.append((name.replace("_", " "), quirks[name], ""))
    return rows


# The harness's counter names (checks.md §2.4, §4.3, §6.4, §7.6) by the check that counts them.
COUNTER_CHECK = {
    "cases": "controllers", "single-value rotations": "controllers",
    "keyed rotations": "controllers", "no controller": "controllers", "no light controller": "controllers",
    "material cases": "materials", "multistep checks": "multistep",
    "playbacks": "playback", "steps": "playback", "ends": "playback", "loops": "playback",
    "loop resets": "playback", "object matrices": "playback", "exact local matrices": "playback",
    "morph states": "playback",
    "note runs": "notes", "note steps": "notes", "notes delivered": "notes",
    "steps with several notes": "notes", "zero steps": "notes", "restarts": "notes",
    "repeated NoteProcess": "notes",
    "morph cases": "morph", "morph vertices": "morph", "morphers without a known base": "morph",
    "fobj runs": "fobj", "fobj steps": "fobj", "F_Obj poses": "fobj",
    "exact F_Obj matrices": "fobj",
}


def counter_groups(counters: dict) -> list[tuple[str, list]]:
    """Counters grouped by check: a "<check>." / "<check> " prefix or the known names above."""
    groups: dict[str, list] = {}
    for name in sorted(counters):
        head = COUNTER_CHECK.get(name, "other")
        for sep in (".", "_", "/", ":", " "):
            h = name.split(sep, 1)[0]
            if h in CHECKS:
                head = h
                break
            if h in ("note", "notes"):
                head = "notes"
                break
        groups.setdefault(head, []).append((name, counters[name]))
    order = {c: i for i, c in enumerate(CHECKS)}
    return sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order)))


# The readable name of a counter, by the check that counted it (a name that is clear alone is
# its own label; a "<check>.<name>" counter is shown as <name>).
COUNTER_LABELS = {
    ("controllers", "cases"): "controller cases",
    ("controllers", "no controller"): "records with no controller",
    ("controllers", "no light controller"): "direct light records with no controller",
    ("controllers", "localtp cases"): "localtp comparisons",
    ("controllers", "running-matrix holds continuous"): "running-matrix holds continuous across a turn",
    ("playback", "steps"): "playback steps",
    ("playback", "ends"): "play-once ends",
    ("playback", "zero steps"): "zero-tick steps",
    ("playback", "localtp cases"): "localtp comparisons",
    ("playback", "exact local matrices"): "local matrices compared exactly",
    ("notes", "note zero steps"): "zero-tick steps",
    ("notes", "note loop resets"): "loop resets",
    ("notes", "note ends"): "play-once ends",
    ("notes", "note restarts"): "restarts",
    ("notes", "repeated NoteProcess"): "repeated NoteProcess calls",
    ("morph", "morph cases"): "Modify cases",
    ("morph", "morph vertices"): "blended vertices",
    ("fobj", "fobj runs"): "F_Obj runs",
    ("fobj", "fobj steps"): "F_Obj steps",
    ("fobj", "fobj restarts"): "restarts",
    ("fobj", "exact F_Obj matrices"): "F_Obj matrices compared exactly",
    ("other", "loads fresh"): "chunk loads from scratch",
    ("other", "loads restored"): "chunk loads restored from a snapshot",
    ("other", "loads reloaded"): "chunk loads redone and checked",
}


def counter_label(check: str, name: str) -> str:
    """The readable name of counter `name` counted by `check`."""
    if (check, name) in COUNTER_LABELS:
        return COUNTER_LABELS[(check, name)]
    if name.startswith("playback steps at "):
        return "steps at speed " + name[len("playback steps at "):]
    if name.startswith("playbacks at "):
        return "playbacks at speed " + name[len("playbacks at "):]
    for sep in (".", "/", ":"):
        head, _, rest = name.partition(sep)
        if rest and head == check:
            return rest
    return name
