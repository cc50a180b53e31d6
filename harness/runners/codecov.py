"""Coverage of the game's code over a run: counts per instruction and branch direction, summed.

Every bulk worker's machine counts (Machine(coverage=True), eemu_ext/coverage.py): after each
chunk the worker takes the counts (`take`) into its own total and writes it to
`coverage/<host>-<pid>.json` in the run directory (a cluster's client does so for the counts each
record brings back under CARRY); `finish` sums the files into `coverage.json` (interfaces.md §4),
`make merge` sums the parts' coverage.json files. `report` gives per function, over the functions
reached from the harness's entry points, instructions covered/total and branch directions
covered/total with the annotated disassembly (eemu_ext.coverage.function_report).

DECISION: coverage is on by default (EEDIFF_CODE_COVERAGE=0 turns it off: make bench measures the
two); the counts include the replays of shrinking and provenance, which run the game's code too.
"""
from __future__ import annotations

import glob
import os
import socket

FILE = "coverage.json"
PARTS = "coverage"
CARRY = "_code_coverage"        # a record's own counts, on their way from a cluster worker


def enabled() -> bool:
    return os.environ.get("EEDIFF_CODE_COVERAGE", "1") != "0"


def entry_points():
    """The game functions the harness calls (driver/game.py): where coverage is reported from."""
    from harness.driver import game
    return [game.CONV, game.INIT_WORK, game.RESET_WORK, game.SET_WORK, game.FORWARD, game.NOTE_PROCESS,
            game.MODIFY]


def take(game):
    """The game machine's counts since the last take (a CodeCoverage), its counters emptied; None
    when the machine does not count."""
    from eemu_ext.coverage import CodeCoverage
    m = getattr(game, "m", None)
    if m is None or not getattr(m, "coverage_enabled", False):
        return None
    cov = m.code_coverage
    out = CodeCoverage().merge(cov)
    cov.clear()
    return out


class Total:
    """One process's summed counts, written to its own file of the run directory."""

    def __init__(self):
        from eemu_ext.coverage import CodeCoverage
        self.cov = CodeCoverage()

    def add(self, cov):
        if cov is not None:
            self.cov.merge(cov)

    def write(self, run_path):
        from harness.runners.run import write_json
        d = os.path.join(run_path, PARTS)
        os.makedirs(d, exist_ok=True)
        write_json(os.path.join(d, f"{socket.gethostname()}-{os.getpid()}.json"), self.cov.to_json(),
                   durable=False)


def load(path):
    from eemu_ext.coverage import CodeCoverage
    from harness.runners.run import read_json
    try:
        return CodeCoverage.from_json(read_json(path))
    except ValueError as exc:
        from harness import HarnessError
        raise HarnessError(f"{path}: {exc}") from None


def finish(run_path):
    """Sum coverage/*.json into coverage.json; returns the CodeCoverage (None without parts)."""
    from eemu_ext.coverage import CodeCoverage
    from harness.runners.run import write_json
    parts = sorted(glob.glob(os.path.join(run_path, PARTS, "*.json")))
    if not parts:
        return None
    total = CodeCoverage()
    for p in parts:
        total.merge(load(p))
    write_json(os.path.join(run_path, FILE), total.to_json())
    return total


def merge_files(paths, out_dir):
    """`make merge`: the parts' coverage.json files summed into out_dir/coverage.json."""
    from eemu_ext.coverage import CodeCoverage
    from harness.runners.run import write_json
    found = [p for p in paths if os.path.isfile(p)]
    if not found:
        return None
    total = CodeCoverage()
    for p in found:
        total.merge(load(p))
    write_json(os.path.join(out_dir, FILE), total.to_json())
    return total


def report(image, cov, function=None):
    """[FunctionCoverage] of the functions reached from the entry points (or the one named)."""
    from eemu_ext import Machine
    from eemu_ext.coverage import function_report
    m = Machine()
    m.load_elf(image)
    if function:
        return function_report(m, cov, [function], reachable=False)
    return function_report(m, cov, entry_points())


def totals(funcs):
    """(instructions covered, total, directions covered, total) over the functions."""
    return (sum(f.insns_covered for f in funcs), sum(f.insns_total for f in funcs),
            sum(f.directions_covered for f in funcs), sum(f.directions_total for f in funcs))


def run_image(run_path):
    from harness.runners.run import read_json
    params = read_json(os.path.join(run_path, "params.json"))
    img = params.get("image")
    return img.get("path") if isinstance(img, dict) else img


def run_coverage(run_path):
    """A run's summed counts: coverage.json, else (an interrupted run) its coverage/*.json parts."""
    from harness import HarnessError
    path = os.path.join(run_path, FILE)
    if os.path.isfile(path):
        return load(path)
    cov = finish(run_path)
    if cov is None:
        raise HarnessError(f"{run_path}: no {FILE} and no {PARTS}/*.json (a run with "
                           f"EEDIFF_CODE_COVERAGE=0, or not a run directory)")
    return cov
