"""Coverage of the game's code over a run: counts per instruction and branch direction, summed.

Every bulk worker's machine counts (Machine(coverage=True), eemu_ext/engines/coverage.py): after each
batch of chunks the worker takes the counts (`take`) and returns them with the batch; the bulk
process sums them and writes `coverage/<host>-<pid>.json` in the run directory
(harness/runners/bulk/tasks.py); `finish` sums the files into `coverage.json` (interfaces.md §4),
`make merge` sums the parts' coverage.json files. `report` gives per function, over the functions
reached from the harness's entry points, instructions covered/total and branch directions
covered/total with the annotated disassembly (eemu_ext.engines.coverage.function_report); with the counts
the run directory gets `coverage_functions.json`, those figures and every instruction's line as
data, which reports renders into code_coverage.html (reports never imports the harness).

DECISION: coverage is on by default (EEDIFF_CODE_COVERAGE=0 turns it off: make bench measures the
two); the counts include the replays of shrinking and provenance, which run the game's code too.
"""
from __future__ import annotations

import glob
import os
import socket

FILE = "coverage.json"
PARTS = "coverage"
CARRY = "_code_coverage"        # a key no chunk record carries: the counts travel beside the records
FUNCTIONS = "coverage_functions.json"
FUNCTIONS_FORMAT = "eediff-coverage-functions/1"


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
    from eemu_ext.engines.coverage import CodeCoverage
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
        from eemu_ext.engines.coverage import CodeCoverage
        self.cov = CodeCoverage()

    def add(self, cov):
        if cov is not None:
            self.cov.merge(cov)

    def write(self, run_path):
        from harness.runners.bulk.run import write_json
        d = os.path.join(run_path, PARTS)
        os.makedirs(d, exist_ok=True)
        write_json(os.path.join(d, f"{socket.gethostname()}-{os.getpid()}.json"), self.cov.to_json(),
                   durable=False)


def parse(d, where):
    """The CodeCoverage of its JSON form d; a HarnessError naming `where` when it is not one."""
    from eemu_ext.engines.coverage import CodeCoverage
    try:
        return CodeCoverage.from_json(d)
    except ValueError as exc:
        from harness import HarnessError
        raise HarnessError(f"{where}: {exc}") from None


def load(path):
    from harness.runners.bulk.run import read_json
    return parse(read_json(path), path)


def finish(run_path):
    """Sum coverage/*.json into coverage.json; returns the CodeCoverage (None without parts)."""
    return _sum_into(sorted(glob.glob(os.path.join(run_path, PARTS, "*.json"))), run_path)


def merge_files(paths, out_dir):
    """`make merge`: the parts' coverage.json files summed into out_dir/coverage.json."""
    return _sum_into([p for p in paths if os.path.isfile(p)], out_dir)


def _sum_into(paths, out_dir):
    """The coverage files at `paths` summed into out_dir's coverage.json (and its per-function
    file); None when there is none."""
    from eemu_ext.engines.coverage import CodeCoverage
    from harness.runners.bulk.run import write_json
    if not paths:
        return None
    total = CodeCoverage()
    for p in paths:
        total.merge(load(p))
    write_json(os.path.join(out_dir, FILE), total.to_json())
    write_functions(out_dir, total)
    return total


def _machine(image):
    from eemu_ext import Machine
    m = Machine()
    m.load_elf(image)
    return m


def report(image, cov, function=None, m=None):
    """[FunctionCoverage] of the functions reached from the entry points (or the one named, a
    symbol or a short name such as NoteProcess or ccMalloc), sorted by readable name; each has
    .served: a function the harness serves itself (a hooked stub: allocators, OpenData), which
    the game's code calls but the machine never runs."""
    from eemu_ext.engines.coverage import function_report
    from harness.driver.stubs import STUB_SYMBOLS
    from eemu_ext.loading.function_names import readable, resolve
    m = m or _machine(image)
    if function:
        reached = [f.name for f in function_report(m, cov, entry_points())]
        funcs = function_report(m, cov, [resolve(function, reached)], reachable=False)
    else:
        funcs = sorted(function_report(m, cov, entry_points()), key=lambda f: (readable(f.name).lower(), f.name))
    for f in funcs:
        f.served = f.name in STUB_SYMBOLS
        f.readable = readable(f.name)
    return funcs


def served(funcs):
    return [f for f in funcs if getattr(f, "served", False)]


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def table(funcs):
    """The per-function lines of `python -m harness coverage`: readable name, instructions and
    branch directions covered with percentages; served functions said to be the harness's."""
    width = max([len(f.readable) for f in funcs] + [8])
    lines = [f"{'function':{width}s}  {'instructions':>20s}  {'branch directions':>20s}  symbol"]
    for f in funcs:
        if getattr(f, "served", False):
            lines.append(f"{f.readable:{width}s}  {'served by the harness (a hooked stub; never run)':>42s}  {f.name}")
            continue
        ins = f"{f.insns_covered}/{f.insns_total} {pct(f.insns_covered, f.insns_total):>6s}"
        dirs = f"{f.directions_covered}/{f.directions_total} {pct(f.directions_covered, f.directions_total):>6s}"
        lines.append(f"{f.readable:{width}s}  {ins:>20s}  {dirs:>20s}  {f.name}")
    return lines


def functions_json(image, cov) -> dict:
    """coverage_functions.json (interfaces.md §4): per function reached from the entry points its
    figures and one line per instruction, [address "0x%08x", executions, disassembly, taken,
    not taken] (the two directions' counts of a conditional branch, else null)."""
    from eemu_ext.engines.coverage import CONDITIONAL
    m = _machine(image)
    funcs = report(image, cov, m=m)
    rows = m.decoder.rows
    out = []
    for f in funcs:
        lines = []
        for pc in range(f.start, f.end, 4):
            d = m.decoded(pc)
            t = nt = None
            if d is not None and d[0] >= 0 and rows[d[0]].flow in CONDITIONAL:
                t, nt = cov.directions(pc)
            lines.append([f"0x{pc:08x}", cov.insns.get(pc, 0), m.disasm(pc), t, nt])
        out.append({"name": f.name, "start": f"0x{f.start:08x}", "end": f"0x{f.end:08x}",
                    "insns_covered": f.insns_covered, "insns_total": f.insns_total,
                    "directions_covered": f.directions_covered, "directions_total": f.directions_total,
                    "readable": f.readable, "served": f.served, "lines": lines})
    ic, it, dc, dt = totals(funcs)
    return {"format": FUNCTIONS_FORMAT, "image": str(image),
            "totals": {"functions": len(funcs) - len(served(funcs)), "served": len(served(funcs)), "insns_covered": ic, "insns_total": it,
                       "directions_covered": dc, "directions_total": dt},
            "functions": out}


def write_functions(run_path, cov):
    """coverage_functions.json of the run's counts; the path, or None when the run's executable
    is not there to disassemble (the report then says so)."""
    from harness.runners.bulk.run import write_json
    try:
        image = run_image(run_path)
    except (OSError, ValueError):
        image = None
    # DECISION: without the run's executable (a merge of shards run elsewhere) coverage.json is
    # still written and only the per-function file is missing; the report names what is missing.
    path = os.path.join(run_path, FUNCTIONS)
    if not image or not os.path.isfile(image):
        if os.path.isfile(path):
            os.remove(path)            # figures of other counts
        return None
    write_json(path, functions_json(image, cov))
    return path


def totals(funcs):
    """(instructions covered, total, directions covered, total) over the functions the game's code
    runs (the harness's served stubs left out)."""
    funcs = [f for f in funcs if not getattr(f, "served", False)]
    return (sum(f.insns_covered for f in funcs), sum(f.insns_total for f in funcs),
            sum(f.directions_covered for f in funcs), sum(f.directions_total for f in funcs))


def run_image(run_path):
    from harness.runners.bulk.run import read_json
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
