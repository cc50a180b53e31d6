"""The model commands and chunks the truth-file and model-run tests share."""
import os
import shlex
import sys

from reports.ledger import NOT_EVALUATED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "tests", "harness", "truth_models")
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m reference serve"
NOTES_MODEL = f"{PY} {shlex.quote(os.path.join(MODELS, 'notes_model.py'))}"
MODIFY_MODEL = f"{PY} {shlex.quote(os.path.join(MODELS, 'modify_model.py'))}"
BAD_MODEL = f"{PY} {shlex.quote(os.path.join(MODELS, 'bad_model.py'))}"
# between them: object records (keyed and single-value rotations), materials, morphers with
# real Modify blends, notes and F_Obj records, so every query kind is asked
CHUNKS = ["xd017.cmp::ANM_xd017000", "demo003.cmp::ANM_demo003000", "xddesk01.cmp::ANM_xddsk0",
          "gcmn001.cmp::ANM_gcmn001000"]
# bad_model.py's modes and what the error names for each (a model that misbehaves, docs/truth.md §4)
MISBEHAVIOURS = [
    ("nonjson", "its answer line is not JSON: Traceback (most recent call last): \\x1b[31mnot an answer"),
    ("shape", "query controller #0: wrong shape: pos[0]: expected a list of 3 words, got a list of 2"),
    ("crash", "exited with status 3 before answering its"),
    ("hang", "no answer within 3 s to its"),
    ("count", "answers to"),
    ("order", "answers must come in request order"),
]


def ledger_complete(summary):
    """Whether a run's ledger is complete as the run itself judges it (reports/ledger.py): nothing
    left out (the summary's `left_out`), every kind the game evaluates compared in full and at
    least once, and the kinds it does not evaluate (NOT_EVALUATED) listed with none compared."""
    led = summary.get("ledger") or {}
    evaluated = {k: pc for k, pc in led.items() if k not in NOT_EVALUATED}
    return (bool(evaluated) and not summary.get("left_out")
            and all(c == p > 0 for p, c in evaluated.values())
            and all(led[k][1] == 0 for k in led if k in NOT_EVALUATED))
