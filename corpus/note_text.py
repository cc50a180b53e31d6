"""Note lists in words: each delivered note as {event 0x8005, param 1, time 15, object 88}.

A note as compared is (event, param, time, object) (the harness reads them from
funcNoteProcess arguments, the coord as its object index); events print in hex, as
`corpus stats` counts them.
"""
NOTE_FIELDS = ("event", "param", "time", "object")


def is_note_list(v):
    return (isinstance(v, list) and bool(v) and
            all(isinstance(n, list) and 2 <= len(n) <= 4 and all(isinstance(x, int) for x in n) for n in v))


def note_text(n):
    parts = []
    for name, x in zip(NOTE_FIELDS, n):
        parts.append(f"{name} 0x{x & 0xFFFFFFFF:X}" if name == "event" else f"{name} {x}")
    return "{" + ", ".join(parts) + "}"


def notes_text(v):
    """A note list in words, or None when `v` is not one."""
    if not is_note_list(v):
        return None
    return "[" + ", ".join(note_text(n) for n in v) + "]"
