"""`python -m harness truth --format anim-fixture` (`make fixture`): the users' animation fixture
(docs/spec/fixtures.md §1) written from the game's answers to the checks' queries over bulk's
selection, one chunk at a time (harness.truth.fixture makes the rows).

DECISION: the executable and archive are not refused when they are not Infection's (fixtures.md
§1.9 step 1): the bundled stand-in and synthetic corpus are how the writer is tested. The file's
first comment names both files' SHA-256, so a fixture of other files than the game's says so.

`--from reference` writes the same rows from the built-in reference's answers instead: the two
files differ only where a row is the game's alone, which is how the writer is checked. Every export
also writes each chunk's rows from the other side in memory and compares them row by row, so one
run says how many of its rows the other side would have written identically.

DECISION: a row the two sides write differently makes the export exit 1 (the file is still
written, from the side asked for), naming the first such rows: a fixture whose game rows the
reference would not reproduce is not one the users can take as settled.
"""
from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import sys
import time as _time

from corpus.names import counted, printable
from ground.exits import NOTHING_COMPARED

from harness import HarnessError
from harness.checks import parse_reference
from harness.profiles import run_profile
from harness.runners.truth_runs import truth_export
from harness.truth import fixture
from harness.truth.queries import chunk_line

_W = {}


def _init(opts, source):
    truth_export._init(opts)
    _W["source"] = source


def _one(task):
    """A worker's chunk: (its rows, the error that stopped the game on it, or None)."""
    from reference.serve import answer
    index, cid = task
    opts, prof = truth_export._W["opts"], truth_export._W["prof"]
    if truth_export._W["game"] is None:
        truth_export._W["game"] = opts.validate_image()
    ch = truth_export._W["corpus"].chunk(cid)
    anim = parse_reference(ch, opts.float_model)
    line = chunk_line(truth_export._W["game"], ch, index, opts, prof, asked_checks(opts.checks), anim=anim)
    if line.get("error"):
        truth_export._W["game"] = None
        return [], line["error"]
    ref = answer(ch.data, ch.ext, opts.float_model, line["queries"], where=cid)
    rows = fixture.chunk_rows(cid, anim, line["queries"], ref, _W["source"])
    other = fixture.chunk_rows(cid, anim, line["queries"], ref, OTHER[_W["source"]])
    return rows, fixture.agreement(rows, other), None


OTHER = {"game": "reference", "reference": "game"}
# the query kinds the fixture has rows for (fixture.chunk_rows)
ROW_KINDS = ("controller", "material", "playback", "modify", "notes")


def asked_checks(only=None):
    """The checks whose queries the fixture's rows come from, of `only` (CHECK=) when given: the
    game is not asked what no row holds (the anm's objects, the world matrices, F_Obj poses)."""
    from harness import checks
    from harness.truth.queries import kinds_by_check
    given = None if not only else {checks.resolve(w).name for w in only}
    return [c for c, kinds in kinds_by_check().items() if set(kinds) & set(ROW_KINDS) and (given is None or c in given)]


def _sha256(path):
    if not path:
        return "none"
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def export(opts, out_path, source="game", jobs=1, progress=sys.stderr):
    """Write the fixture of opts' selection to out_path. Returns (chunks, chunks stopped by an
    error, lines per kind, notes in all, the other side's agreement: fixture.Agreement)."""
    if not asked_checks(opts.checks):
        raise HarnessError(f"CHECK={','.join(opts.checks)}: no fixture row comes from "
                           f"{'that check' if len(opts.checks) == 1 else 'those checks'} (the rows come from "
                           f"{', '.join(asked_checks())})")
    ids = truth_export.selection(opts)
    opts.validate_image()
    tasks = list(enumerate(ids))
    tmp = str(out_path) + ".partial"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(str(out_path))), exist_ok=True)
        f = open(tmp, "w", encoding="ascii", newline="\n")
    except OSError as exc:
        raise HarnessError(f"cannot write {printable(str(out_path))}: {exc.strerror}") from None
    run_profile(opts)
    later, errors = [], []
    per, notes, agree = dict.fromkeys(fixture.KINDS, 0), 0, fixture.Agreement()
    bar = truth_export.progress_line(progress, len(tasks), "fixture")
    with f:
        f.write(f"# anim_fixture written by eediff from the {'game' if source == 'game' else 'built-in reference'}'s "
                f"answers: executable sha256 {_sha256(opts.image)}, archive sha256 {_sha256(opts.data_path())}, "
                f"seed {opts.seed}, profile {opts.profile}, {counted(len(ids), 'chunk')}\n")
        for kind in fixture.KINDS:
            f.write(fixture.KIND_COMMENTS[kind] + "\n")

        def take(rows, same, err, done):
            nonlocal notes
            k_per, k_notes = fixture.counts(rows)
            for k in fixture.KINDS:
                per[k] += k_per[k]
            notes += k_notes
            agree.add(same)
            for r in rows:
                if r.reference_only:
                    later.append(r.text)
                else:
                    f.write(r.text + "\n")
            if err:
                errors.append((ids[done - 1], err))
            bar.update(done - 1, 0, bool(err))

        if jobs > 1 and len(tasks) > 1:
            with mp.get_context("fork").Pool(jobs, initializer=_init, initargs=(opts, source)) as pool:
                for done, (rows, same, err) in enumerate(pool.imap(_one, tasks, chunksize=1), 1):
                    take(rows, same, err, done)
        else:
            _init(opts, source)
            for done, task in enumerate(tasks, 1):
                take(*_one(task), done)
        if later:
            f.write(f"# reference-only: {counted(len(later), 'pose line')} of keyed rotations, R00..R22 "
                    f"from eediff's reference (see the pose comment above)\n")
            for text in later:
                f.write(text + "\n")
    os.replace(tmp, out_path)
    bar.finish()
    return len(tasks), errors, per, notes, agree


def run_fixture(opts, out_path, jobs, source="game", err=None):
    err = err or sys.stderr
    t0 = _time.time()
    n, errors, per, notes, agree = export(opts, out_path, source, jobs=jobs, progress=err)
    size = os.path.getsize(out_path)
    print(printable(f"fixture: {counted(n, 'chunk')} written to {out_path} ({size / 1e6:.1f} MB, "
                    f"{_time.time() - t0:.1f} s): " + ", ".join(f"{k} {per[k]}" for k in fixture.KINDS)
                    + f" lines, {notes} notes"))
    print(printable(f"fixture: the same rows written from the {'built-in reference' if source == 'game' else 'game'}'s "
                    f"answers: {agree.text()}"))
    for text in agree.first_differences:
        print(printable(f"fixture: differs from the {OTHER[source]}'s row: {text}"), file=err)
    for cid, e in errors:
        print(printable(f"fixture: chunk {cid} stopped by an error in check {e.get('check')}: "
                        f"{e.get('type')}: {e.get('message')}"), file=err)
    if n == 0:
        print("fixture: nothing selected: the file holds no chunk", file=err)
        return NOTHING_COMPARED
    short = fixture.short_of_minimum(per, notes)
    if short:
        # DECISION: the file is written, but a fixture below the reader's minimum counts fails the
        # users' test for that reason alone, so the run is not green
        print(printable(f"fixture: below the reader's minimum counts (fixtures.md §1.1): {'; '.join(short)}"),
              file=err)
        return 1
    return 1 if errors or agree.differ else 0
