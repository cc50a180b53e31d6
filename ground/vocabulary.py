"""The words the packages share: the checks' names, the record kinds a check needs, the ledger's
kinds. Said once here; the harness's check registry (harness/checks) holds its modules to it at
import, and reports, the truth files, the pytest plugin, corpus and the Makefile's help take
their lists from it.
"""
from __future__ import annotations

# the checks of checks.md §2-§7, in run order (harness/checks: one module each)
CHECKS = ("controllers", "materials", "playback", "notes", "morph", "fobj", "objects", "world")
# a name that selects another check: the multi-step comparison runs inside controllers (checks.md
# §2.3), and its mismatches carry "multistep"
ALIASES = {"multistep": "controllers"}
# every name --check accepts and a mismatch's "check" may hold: run order, aliases after their check.
# DECISION: reports orders its testcases and counter groups by this too (its own list had
# multistep after materials): one order everywhere, the registry's
CHECK_NAMES = tuple(n for c in CHECKS for n in (c, *(a for a, of in ALIASES.items() if of == c)))

# the record kinds a check may need: a chunk has the kind when its bytes pass the kind's quick
# test (harness/runners/bulk/selection.QUICK_TESTS)
RECORD_KINDS = ("object", "material", "morph", "note", "fobj")

# the ledger (harness/compare/ledger.py, reports/ledger.py): kind -> the check that compares it,
# in the order the closing block and the report list them (DECISION: the harness's order; the
# report's own list lacked index entries and drawn entries, which it then sorted by name)
LEDGER_KINDS = {
    "object records": "controllers",
    "material records": "materials",
    "F_Morpher records": "morph",
    "F_Note records": "notes",
    "F_Obj records": "fobj",
    "tracks": "playback",
    "morph vertices": "morph",
    "direct light records": "controllers",
    "index entries": "objects",
    "drawn entries": "world",
}
# the query kinds of the truth files and the model protocol (docs/truth.md §3) -> the check whose
# queries they are, in the order a chunk's queries come (the checks' run order)
QUERY_KINDS = {
    "controller": "controllers",
    "multistep": "controllers",
    "light": "controllers",
    "material": "materials",
    "playback": "playback",
    "notes": "notes",
    "modify": "morph",
    "fobj": "fobj",
    "objects": "objects",
    "world": "world",
}
# the light records SetAnmCtrlWork does not evaluate (docs/lights.md): in the ledger by name,
# nothing compared, never left out
DISTANT_LIGHTS, SPOT_LIGHTS, OMNI_LIGHTS = "distant light records", "spot light records", "omni light records"
NOT_EVALUATED = (DISTANT_LIGHTS, SPOT_LIGHTS, OMNI_LIGHTS)
