"""The sizes a truth file and a model's answers may reach (docs/truth.md §1, "Limits").

A line past its limit, or a file whose (decompressed) text runs past its limit, is refused with a
one-line error naming the file or model, the chunk and the line: nothing is held whole first, and
a gzip bomb is stopped at the limit rather than inflated.

DECISION: 256 MiB a line. A chunk's line holds every query's game words (the largest on the
bundled corpus, a nightly playback at four speeds, are a few MB; docs/truth.md §1 gives the
sizes), and a model's answer line holds the same words again; 256 MiB is far above both and far
below what holding one line (and its parse, several times its size) costs a 2-core machine.
DECISION: 64 GiB of text a file: the full 4,091-chunk nightly is about 10 GB decompressed.
"""
LINE_BYTES = 256 << 20          # a truth file's line
ANSWER_BYTES = 256 << 20        # a model's answer line
FILE_BYTES = 64 << 30           # a truth file's text, decompressed


def mib(n):
    return f"{n / (1 << 20):g} MiB"
