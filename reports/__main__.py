"""Command line: `python -m reports render RUN_DIR` (what `make report RUN=<dir>` calls)."""
from __future__ import annotations

import argparse
import sys

from . import ReportError, render


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reports",
                                 description="Render an eediff run directory.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="write report.html, junit.xml and summary.json")
    r.add_argument("run_dir", help="build/runs/<run-id> (or build/runs/latest)")
    r.add_argument("--out", help="write into this directory instead of the run directory")
    args = ap.parse_args(argv)
    try:
        path = render(args.run_dir, args.out)
    except ReportError as e:
        print(f"reports: {e}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
