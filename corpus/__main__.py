"""python -m corpus synth|stats|list: write the synthetic archive, print an archive's census, list its chunk ids."""
import argparse
import sys

from .errors import CorpusError
from .listing import CHECK_RECORDS


def main(argv=None):
    ap = argparse.ArgumentParser(prog=".venv/bin/python -m corpus")
    sub = ap.add_subparsers(dest="cmd", required=True)  # exit statuses: 0 ok, 1 bad members, 2 input error
    s = sub.add_parser("synth", help="write a synthetic DATA.BIN, categories.c and manifest.json")
    s.add_argument("--out", required=True)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--small", action="store_true", help="just the role cases (fast tests)")
    s.add_argument("--volume", choices=("inf", "mut", "out", "qua"), default=None,
                   help="that volume's members per category (volumes.md §5; default Infection's 1,023)")
    s.add_argument("--jobs", type=int, default=None, help="worker processes (default: up to 2)")
    s.add_argument("-q", "--quiet", action="store_true")
    t = sub.add_parser("stats", help="census of an archive (corpus-stats.md)")
    t.add_argument("path", nargs="?", help="DATA.BIN (default build/synth/DATA.BIN)")
    t.add_argument("--image", help="executable with categoryFDTbl/cateCDOfsTbl")
    t.add_argument("--disc", help="ISO 9660 image holding DATA/DATA.BIN")
    t.add_argument("--json", action="store_true")
    ls = sub.add_parser("list", help="the chunk ids (member::ANM_name), one a line, for CASE=")
    ls.add_argument("path", nargs="?", help="DATA.BIN (default build/synth/DATA.BIN)")
    ls.add_argument("--image", help="executable with categoryFDTbl/cateCDOfsTbl")
    ls.add_argument("--disc", help="ISO 9660 image holding DATA/DATA.BIN")
    ls.add_argument("--grep", metavar="PATTERN", help="only ids matching this regular expression (any case)")
    ls.add_argument("--check", choices=tuple(CHECK_RECORDS),
                    help="only chunks holding records this check compares (notes: the chunks with notes)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "synth":
            from .synth import synthesize
            try:
                synthesize(a.out, seed=a.seed, small=a.small, jobs=a.jobs, volume=a.volume,
                           log=None if a.quiet else (lambda m: print(m, file=sys.stderr)))
            except ValueError as e:         # a split the disc's figures leave no room for
                if a.volume is None:
                    raise
                print(f"error: synth --volume {a.volume} --seed {a.seed}: {e}", file=sys.stderr)
                return 2
            return 0
        if a.cmd == "list":
            from .listing import list_main
            return list_main(a)
        from .stats import main as stats_main
        return stats_main(a)
    except CorpusError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
