"""A model of the notes queries, written from scratch (docs/truth.md §6): nothing of eediff imported.

    python tests/harness/truth_models/notes_model.py [--wrong]
    .venv/bin/python -m harness check-truth FILE --check notes --model 'python3 tests/harness/truth_models/notes_model.py'

It reads the Anime chunk's F_Note records and its end Top, plays the plan with the time rule of
animation-semantics.md §8.1 and hands on the notes of §10.4. --wrong flips bit 0 of the event of
the first note it delivers in each chunk: a deliberately wrong model, which check-truth must catch.
"""
import base64
import json
import struct
import sys

M32 = 0xFFFFFFFF


def parse(data):
    """(frames, loops, [(frame, object, event, param)] in file order) of an Anime chunk."""
    frames, words = struct.unpack_from("<2I", data, 12)
    notes, frame, loops, p = [], 0, False, 20
    while p < 20 + 4 * words:
        kind, n = struct.unpack_from("<2I", data, p)
        if kind & 0xFFFF == 0xFF01:                        # Top: a frame, or the end
            value = struct.unpack_from("<I", data, p + 8)[0]
            if value >= 0xFFFFFF00:
                loops = value == 0xFFFFFFFE
            else:
                frame = value
        elif kind & 0xFFFF == 0x0108:                      # F_Note: object, event, param
            notes.append((frame,) + struct.unpack_from("<3I", data, p + 8))
        p += 8 + 4 * n
    return frames, loops, notes


def step(time, s, frames, loops, notes):
    """One _AnimateForward + NoteProcess: (new time, return value, the notes handed on)."""
    last = ((frames - 1) * 256) & M32
    new, ended = (time + s) & M32, 0
    if new > last:
        new, ended = last, 1
    old, nf = time >> 8, new >> 8
    passed = [[ev, prm, old if f == old + 1 else f, obj]
              for f, obj, ev, prm in reversed(notes) if old < f <= nf]
    if nf != old:
        ended = 0
        if nf >= ((frames - 1) & M32):
            new, ended = (0, 0) if loops else (new, 1)
    return new, ended, passed


def answer(q, frames, loops, notes, wrong):
    time, forward, delivered = 0, [], []
    for s, restart in q["plan"]:
        new, ended, passed = step(time, s, frames, loops, notes)
        forward.append([new, ended])
        delivered.append(passed)
        time = 0 if ended and not loops and restart else new
    if wrong:
        for passed in delivered:
            if passed:
                passed[0][0] ^= 1
                break
    return {"i": q["i"], "kind": "notes", "forward": forward, "notes": delivered}


def main():
    wrong = "--wrong" in sys.argv[1:]
    for line in sys.stdin:
        msg = json.loads(line)
        frames, loops, notes = parse(base64.b64decode(msg["anime"]))
        if any(q["kind"] != "notes" for q in msg["queries"]):
            reply = {"chunk": msg["chunk"], "error": "this model answers notes queries only (--check notes)"}
        else:
            reply = {"chunk": msg["chunk"], "answers": [answer(q, frames, loops, notes, wrong) for q in msg["queries"]]}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
