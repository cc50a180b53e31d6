"""`python -m harness check-truth` (docs/truth.md §4): a model against a truth file, without the emulator.

check-truth's exit statuses are bulk's (README.md, "Exit statuses"): 0 every query compared and
equal, 1 mismatches or an error (a chunk the game could not finish in the export, a model that
answered wrong or not at all), 2 bad input (the file, its header, files other than its own),
5 nothing compared.
"""
from __future__ import annotations

import json
import os
import sys
import time as _time
from collections import Counter, deque

from corpus.names import counted, printable
from ground.exits import NOTHING_COMPARED

from harness import HarnessError
from harness.checks import parse_reference
from harness.truth import check as cmp
from harness.truth import fileformat, outputs, protocol

# DECISION: requests written ahead of the answer being compared: the model computes the next
# chunks while the harness compares this one (two cores); more only holds more chunks in memory
AHEAD = 2


def _identity_or_refuse(label, recorded, path, flag, file_label):
    """Refuse a file whose SHA-256 is not the one the truth file was made with."""
    from harness.runners.bulk.run import file_identity
    if not recorded:
        return
    if not path or not os.path.isfile(path):
        raise HarnessError(f"{label}: made with {flag[2:].upper()} {printable(recorded.get('path'))}; "
                           f"{flag} {printable(path)} is not a file")
    got = file_identity(path)["sha256"]
    if got != recorded.get("sha256"):
        raise HarnessError(f"{label}: made with the {file_label} {printable(recorded.get('path'))} (sha256 "
                           f"{printable(str(recorded.get('sha256'))[:16])}...), but {flag} {printable(path)} has sha256 "
                           f"{got[:16]}...: give {flag} the {file_label} the truth file was made with")


def _kinds(check):
    from harness.truth.queries import kinds_of
    if check is None:
        return None
    if check == "multistep":
        return ("multistep",)
    return kinds_of(check)


def check_truth(path, model_cmd=None, image=None, data=None, disc=None, case=None, check=None,
                timeout=protocol.DEFAULT_TIMEOUT, show=20, json_out=None, out=None, err=None):
    """Compare a model with the truth file at `path`; print mismatches and a summary; return
    (exit status, summary dict)."""
    out = out or sys.stdout
    err = err or sys.stderr
    from harness.options import DEFAULT_DATA, DEFAULT_IMAGE
    from harness.profiles import profile
    label = printable(path)
    image = image or DEFAULT_IMAGE
    if json_out:
        # refused before anything is read or opened for writing (an input it names stays whole)
        outputs.check_output(json_out, "--json", [path, image, data or DEFAULT_DATA, disc])
    header, lines = fileformat.read(path)
    if fileformat.is_digests(header):
        raise fileformat.TruthFileError(f"{label}:1: holds the game's answers as SHA-256 digests (make volumes), "
                                        f"not their words: a model is checked against a whole truth file (make truth)")
    if header.get("disc") and not data:
        data = None
    else:
        data = data or DEFAULT_DATA
    _identity_or_refuse(label, header.get("image"), image, "--image", "executable")
    if header.get("disc"):
        _identity_or_refuse(label, header["disc"], disc, "--disc", "disc image")
    else:
        _identity_or_refuse(label, header.get("data"), data, "--data", "archive")
    from corpus import CorpusError, open_corpus
    try:
        corpus = open_corpus(data=data, disc=disc)
    except CorpusError as exc:
        raise HarnessError(f"corpus {printable(data or disc)}: {exc}") from None
    known = set(corpus.chunk_ids())
    try:
        profile(header["profile"])          # a profile eediff does not know is a malformed header
    except ValueError as exc:
        raise fileformat.TruthFileError(f"{label}:1: {exc}") from None
    float_model = header["float_model"]
    kinds = _kinds(check)
    compared = cmp.comparisons()        # the query kinds of this format: the registry's, as it is now
    defaults = {"IMAGE": DEFAULT_IMAGE, "DATA": DEFAULT_DATA}
    model = protocol.model(model_cmd, timeout)
    counters, per_check = Counter(), Counter()
    mismatches, shown, dropped = 0, 0, 0
    failing, errors, chunks, queries_done = [], [], 0, 0
    try:
        jf = open(json_out, "w", encoding="utf-8") if json_out else None
    except OSError as exc:
        model.close()
        raise HarnessError(f"--json {printable(json_out)}: cannot write it ({exc.strerror})") from None
    pending = deque()
    t0 = _time.time()

    def settle(limit):
        nonlocal mismatches, shown, queries_done, dropped
        while len(pending) > limit:
            line, queries, ctx, anim = pending.popleft()
            answers = protocol.checked_answers(line["chunk"], queries, model.receive())
            tally = cmp_tally()
            for q, a in zip(queries, answers):
                try:
                    cmp.compare(q, a, ctx, tally, anim)
                except (KeyError, IndexError, TypeError, ValueError) as exc:
                    raise fileformat.TruthFileError(
                        f"{label}:{line['_line']}: chunk {printable(line['chunk'])}, query "
                        f"{printable(q.get('kind'))} #{q.get('i')}: the game's words do not fit the query "
                        f"({type(exc).__name__}: {printable(exc)})") from None
                per_check[cmp.check_of(q["kind"])] += 1
            queries_done += len(queries)
            counters.update(tally.counters)
            n_bad = tally.counters.get("failures", 0)
            dropped += tally.dropped
            if n_bad:
                mismatches += n_bad
                failing.append((line["chunk"], n_bad))
            for m in tally.mismatches:
                if model_cmd:
                    m["answered_by"] = "model"          # the expected side is the model's answer
                if jf is not None:
                    jf.write(json.dumps(m) + "\n")
                if shown < show:
                    from harness.compare.show import format_mismatch
                    print(format_mismatch(m), file=out)
                    shown += 1

    def cmp_tally():
        from harness.compare.tally import Tally
        return Tally()

    try:
        for line in lines:
            if case is not None and line["chunk"] != case:
                continue
            cid = line["chunk"]
            if line.get("error"):
                e = line["error"]
                errors.append(cid)
                print(printable(f"error in {cid} (check {e.get('check')}): the export stopped: "
                                f"{e.get('type')}: {e.get('message')}"), file=err)
            queries = [q for q in line.get("queries") or () if kinds is None or q.get("kind") in kinds]
            if not queries:
                continue
            for q in queries:
                if q.get("kind") not in compared or "game" not in q or not isinstance(q.get("i"), int):
                    raise fileformat.TruthFileError(
                        f"{label}:{line['_line']}: chunk {printable(cid)}: query #{printable(q.get('i'))} "
                        f"of kind {printable(q.get('kind'))} is not a query of this format")
            if cid not in known:
                raise HarnessError(f"{label}:{line['_line']}: chunk {printable(cid)} is not in "
                                   f"{printable(data or disc)}")
            ch = corpus.chunk(cid)
            try:               # what the checks count of what they compared reads the chunk's parse
                anim = parse_reference(ch, float_model)
            except Exception as exc:
                raise HarnessError(f"{label}:{line['_line']}: chunk {printable(cid)}: the reference refuses it "
                                   f"({type(exc).__name__}: {printable(exc)})") from None
            chunks += 1
            ctx = cmp.TruthContext(cid, header["seed"], header["profile"], float_model, path, model_cmd,
                                   image, data, disc, defaults=defaults)
            model.send(cid, ch.data, ch.ext, float_model, queries)
            pending.append((line, queries, ctx, anim))
            settle(AHEAD)
        settle(0)
    except BaseException:
        if isinstance(model, protocol.External):
            model.kill()
        raise
    finally:
        if jf is not None:
            jf.close()
    model.close()
    seconds = _time.time() - t0
    summary = {"chunks": chunks, "queries": queries_done, "by_check": dict(per_check),
               "mismatches": mismatches, "dropped_mismatches": dropped, "failing_chunks": [c for c, _ in failing], "errors": errors,
               "counters": dict(counters), "seconds": round(seconds, 2), "model": model.name}
    who = model.name
    if failing:
        print(f"\nfailing chunks ({len(failing)}):", file=out)
        for c, n in failing[:20]:
            print(printable(f"  {c}: {counted(n, 'mismatch')}"), file=out)
    print(printable(f"check-truth: {who} against {path}: {counted(chunks, 'chunk')}, "
                    f"{counted(queries_done, 'query', 'queries')} compared "
                    f"({', '.join(f'{k} {v}' for k, v in sorted(per_check.items())) or 'none'}); "
                    f"{counted(mismatches, 'mismatch')}"
                    + (f" (first {shown} shown)" if mismatches > shown else "")
                    + (f"; {counted(len(errors), 'chunk')} the export could not finish" if errors else "")
                    + f"; {seconds:.1f} s"), file=out)
    if mismatches or errors:
        status = 1
        print(f"{'MISMATCHES' if mismatches else 'ERRORS'} (exit 1)", file=out)
    elif queries_done == 0:
        status = NOTHING_COMPARED
        print(f"NOTHING COMPARED (exit {NOTHING_COMPARED})", file=out)
    else:
        status = 0
        print("PASS (exit 0)", file=out)
    summary["exit_status"] = status
    return status, summary
