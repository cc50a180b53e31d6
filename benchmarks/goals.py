"""The goals a bench judges: `goal(text, ok)` prints "met" or "NOT met" and remembers a miss;
`verdict(name)` ends a bench's main(): 1 (make bench fails) when a goal was missed, else 0.
Each bench runs in its own process (make bench), so the list of misses is that bench's."""

UNMET = []      # the goals this bench run missed


def goal(text, ok):
    """'met' or 'NOT met' for the goal `text`, remembered when not met."""
    if not ok:
        UNMET.append(text)
    return "met" if ok else "NOT met"


def verdict(name):
    """The bench's exit status, after naming the goals it missed."""
    if UNMET:
        print(f"{name}: goals NOT met: {'; '.join(UNMET)}")
    return 1 if UNMET else 0
