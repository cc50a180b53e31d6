"""Across volumes: each volume's game against the reference, then the later ones' against the first's truth.

For each executable (with its DATA.BIN or disc): the nightly against the built-in reference (its
verdict is the volume's), and a truth file of the game's answers in the digest form (truth_export,
fileformat.digested). Then each later volume's nightly records against the first's, and its game
against the first volume's truth file, on the chunks both hold: every `game` answer that differs,
by function and chunk. A difference between volumes is a finding for the port, not a
failure of either run; a volume's own verdict sets the exit status, and so does a query of a shared
chunk that one volume holds and the other does not (it was left out of the comparison).

DECISION: a later volume's game is held against the first volume's truth file through its own truth
file, not by running check-truth with the game answering: a query comes from its check's own
functions and seeded generator, `harness.profiles.rng(seed, chunk id, check)` (docs/truth.md), so
the later volume's export asks its game exactly the first file's queries, and its `game` words are that game's answers to them; each query is matched on
everything it asks (its index, kind and inputs), so a query asked differently is never compared
with another. The comparison is raw u32 words equal, with no tolerance: both sides are the game,
and the one tolerance of check-truth (a keyed rotation's, docs/tolerances.md) bounds a model's
keys passed against the game's, which has no meaning between two games.

DECISION: a volume's truth file is written in the digest form, and it is not checked against the
reference by check-truth: the volume's nightly already compares every record the game writes with
the reference, on the same selection and seed, and a check-truth of the same answers would be a
second full pass per volume. A whole truth file of the nightly runs to some 50 GB a volume (the
world queries' words); its digests to some 90 MB (91 MB for the stand-in's Infection). `make truth` still writes the whole file.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from collections import defaultdict
from typing import Dict, List

from corpus.names import counted, printable
from harness import HarnessError
from harness.truth import fileformat

# DECISION: the function a query's answers come from (checks.md): the controllers' queries are
# SetAnmCtrlWork's, playback and the object flags _AnimateForward's, notes NoteProcess's.
FUNCTION = {"controller": "SetAnmCtrlWork", "multistep": "SetAnmCtrlWork", "material": "SetAnmCtrlWork",
            "playback": "_AnimateForward", "fobj": "_AnimateForward", "notes": "NoteProcess", "modify": "Modify"}


def answers(path) -> Dict[str, Dict[tuple, str]]:
    """{chunk: {(i, kind, the digest of the query without its answers): the digest of the game's
    answers}} of a truth file, whole or in the digest form, read line by line.
    DECISION: the queries and answers are held as SHA-256 digests of their canonical JSON, not
    whole: a full-size truth file runs to tens of gigabytes, and two answers' digests are equal
    exactly when their raw words are (short of a SHA-256 collision)."""
    header, lines = fileformat.read(path)
    digests = fileformat.is_digests(header)
    out: Dict[str, Dict[tuple, str]] = {}
    for line in lines:
        if "queries" not in line:
            continue
        qs = {}
        for q in (line["queries"] if digests else fileformat.digested(line)["queries"]):
            qs[(q["i"], q["kind"], q["asked"])] = q["game"]
        out[line["chunk"]] = qs
    return out


def differences(a_path, b_path, same=None) -> dict:
    """{'shared': chunks both hold, 'queries': queries compared, 'by_function': {function: {chunk:
    [query index, ...]}}, 'unmatched': {chunk: [query index, ...]}} of the game of the volume of
    `b_path` against the truth file `a_path`; 'unmatched' are the queries of a shared chunk that
    only one of the two files holds (never compared). same(ids): the ids of those chunks whose bytes
    are equal in both archives (default: all); a chunk of one id and other bytes is another chunk,
    counted in 'other_bytes' and never compared."""
    a, b = answers(a_path), answers(b_path)
    both = sorted(set(a) & set(b))
    shared = same(both) if same is not None else both
    found: Dict[str, Dict[str, List[int]]] = defaultdict(lambda: defaultdict(list))
    unmatched: Dict[str, List[int]] = {}
    compared = 0
    for chunk in shared:
        for key, game in a[chunk].items():
            if key in b[chunk]:
                compared += 1
                if b[chunk][key] != game:
                    found[FUNCTION.get(key[1], key[1])][chunk].append(key[0])
        alone = sorted(k[0] for k in set(a[chunk]) ^ set(b[chunk]))
        if alone:
            unmatched[chunk] = alone
    return {"shared": len(shared), "other_bytes": len(both) - len(shared), "queries": compared,
            "by_function": {f: dict(sorted(c.items())) for f, c in sorted(found.items())},
            "unmatched": unmatched}


# DECISION: what a chunk's bulk record holds beyond the game's and the reference's answers is set
# aside when two volumes' records are held together: its timings (seconds, timing, cpu_seconds,
# machine_cpu), what the executable's own code decides rather than its answers (machine_steps: a
# recompiled volume runs other instructions; repro: names the executable) and its place in the run.
ASIDE = ("index", "seconds", "timing", "cpu_seconds", "machine_cpu", "machine_steps", "repro")


def run_records(run_dir) -> Dict[str, dict]:
    """{chunk id: its record without ASIDE} of a bulk run directory."""
    out = {}
    chunks = os.path.join(run_dir, "chunks")
    for name in sorted(os.listdir(chunks)) if os.path.isdir(chunks) else ():
        if name.endswith(".json"):
            with open(os.path.join(chunks, name)) as f:
                rec = json.load(f)
            out[rec["chunk"]] = {k: v for k, v in rec.items() if k not in ASIDE}
    return out


def same_bytes(a_corpus, b_corpus, ids) -> List[str]:
    """The chunk ids of `ids` whose bytes are equal in both archives (the synthetic cases, built by
    code, always are)."""
    return [c for c in ids if c.startswith("synthetic::") or a_corpus.chunk(c).data == b_corpus.chunk(c).data]


def record_differences(a_run, b_run, a_corpus, b_corpus) -> dict:
    """{'compared': chunks of the same id and bytes in both runs, 'differ': {chunk: [fields]}}."""
    a, b = run_records(a_run), run_records(b_run)
    shared = same_bytes(a_corpus, b_corpus, sorted(set(a) & set(b)))
    differ = {c: sorted(k for k in set(a[c]) | set(b[c]) if a[c].get(k) != b[c].get(k)) for c in shared}
    return {"compared": len(shared), "synthetic": sum(c.startswith("synthetic::") for c in shared),
            "differ": {c: f for c, f in differ.items() if f}}


def _some(idx):
    return ", ".join(map(str, idx[:8])) + (" ..." if len(idx) > 8 else "")


def _archive(opts):
    """The archive a volume's run reads (its DATA.BIN's or disc's real path)."""
    return os.path.realpath(opts.data or opts.disc)


def _summary_verdict(run, exit_status) -> str:
    """'PASS (N chunks)' or the run's status, from its summary.json."""
    try:
        with open(os.path.join(run, "summary.json")) as f:
            summ = json.load(f)
    except (OSError, ValueError):
        return f"no summary (exit {exit_status})"
    n = summ.get("chunks_done", summ.get("chunks", "?"))
    word = "PASS" if exit_status == 0 else f"FAIL ({summ.get('status', 'no status')}, exit {exit_status})"
    return f"{word}, {n} chunks"


# DECISION: a volume's nightly and answers that an earlier `make volumes` into the same OUT= wrote
# with the same parameters and code are kept (a stopped nightly is resumed, as bulk resumes a run
# directory), so the four volumes at full size, some two hours on two cores, pick up where a stop
# left them; anything made otherwise is made afresh, and said so.
def _nightly(opts, run, err):
    """The volume's nightly into `run`: resumed when `run` holds one of the same parameters and code."""
    from dataclasses import replace

    from harness.runners.bulk.command import OtherParameters, run_bulk
    if os.path.isfile(os.path.join(run, "params.json")):
        try:
            return run_bulk(replace(opts, out=run))
        except OtherParameters as exc:
            print(printable(f"volumes: {exc}: its nightly is run afresh"), file=err or sys.stderr)
    shutil.rmtree(run, ignore_errors=True)
    return run_bulk(replace(opts, out=run, fresh=True))


def _answers_done(opts, path, err) -> bool:
    """True when `path` is a whole digest truth file of this volume's selection, written by this
    code with these parameters (its header is the one an export would write now)."""
    from harness.runners.truth_runs.truth_export import header, selection
    if not os.path.isfile(path):
        return False
    try:
        head, lines = fileformat.read(path)
        for _ in lines:                     # read to its closing line: a cut file is not whole
            pass
    except HarnessError:
        head = None
    if head != header(opts, selection(opts), digests=True):
        print(printable(f"volumes: {path}: not this volume's answers with these parameters and code: "
                        f"written afresh"), file=err or sys.stderr)
        return False
    print(printable(f"volumes: {path}: this volume's answers, written by this code: kept"))
    return True


def run_volumes(option_sets, out_dir, jobs=1, err=None) -> int:
    """option_sets: one Options per volume (IMAGE with DATA, or DISC). Writes out_dir/<volume>.answers (digests), <volume>.run
    and out_dir/volumes.json; prints the verdicts and the differences; the exit status is the worst
    verdict's."""
    from harness.runners.truth_runs.truth_export import run_truth
    from harness.volume import of_options
    os.makedirs(out_dir, exist_ok=True)
    rows, status = [], 0
    for opts in option_sets:
        vol = of_options(opts).volume
        path = os.path.join(out_dir, f"{vol.key}.answers")
        if any(r["path"] == path for r in rows):
            path = os.path.join(out_dir, f"{vol.key}-{len(rows)}.answers")
        run = path[:-len(".answers")] + ".run"        # the nightly's procedure on the same sample
        nightly = _nightly(opts, run, err)
        st = 0 if _answers_done(opts, path, err) else run_truth(opts, path, jobs, err=err, digests=True)
        status = max(status, nightly, st)
        rows.append({"volume": vol.key, "name": vol.name, "image": opts.image, "path": path, "run": run,
                     "answers": "written as digests" if st == 0 else f"stopped (exit {st})",
                     "nightly": _summary_verdict(run, nightly), "_opts": opts})
    print("volumes:")
    for r in rows:
        print(f"  {r['volume'].upper()} ({r['name']}) {r['image']}: nightly {r['nightly']}; game's answers {r['answers']}")
    first = rows[0]
    for other in rows[1:]:
        rd = record_differences(first["run"], other["run"], first["_opts"].open_corpus(), other["_opts"].open_corpus())
        other["records"] = rd
        head = (f"{other['volume'].upper()}'s nightly records against {first['volume'].upper()}'s, on the "
                f"{counted(rd['compared'], 'chunk')} of the same id and bytes in both ({rd['synthetic']} of them "
                f"synthetic cases): ")
        print(head + ("identical (timings aside)" if rd["compared"] and not rd["differ"] else
                      "nothing compared" if not rd["compared"] else
                      f"{counted(len(rd['differ']), 'chunk')} differ (a finding for the port, not a failure)"))
        for chunk, fields in list(rd["differ"].items())[:20]:
            print(printable(f"  {chunk}: {', '.join(fields)}"))
    cross = []
    for other in rows[1:]:
        corpora = (rows[0]["_opts"].open_corpus(), other["_opts"].open_corpus())
        d = differences(rows[0]["path"], other["path"], lambda ids, c=corpora: same_bytes(*c, ids))
        cross.append(dict(d, a=rows[0]["volume"], b=other["volume"], a_path=rows[0]["path"], b_path=other["path"]))
        n = sum(len(c) for c in d["by_function"].values())
        print(f"{other['volume'].upper()}'s game against {rows[0]['volume'].upper()}'s truth: "
              f"{d['shared']} shared chunks (same id and bytes; {d['other_bytes']} of the same id with other bytes "
              f"not compared), "
              f"{d['queries']} queries compared, {counted(n, 'chunk')} differ"
              + (" (a finding for the port, not a failure)" if n else ""))
        for fn, chunks in d["by_function"].items():
            for chunk, idx in chunks.items():
                print(printable(f"  {fn}: {chunk} (queries {_some(idx)})"))
        # DECISION: on one archive a query held by one volume only is a failure (it was left out);
        # on each volume's own archive a chunk of the same bytes may be asked differently (its
        # queries' inputs come from the member around it, which the archives may hold otherwise),
        # so such a query is named and not compared, never a failure.
        own = _archive(rows[0]["_opts"]) != _archive(other["_opts"])
        for chunk, idx in d["unmatched"].items():
            print(printable(f"  not compared: {chunk}: queries {_some(idx)} held by one volume only"
                            + (" (asked differently on its own archive)" if own else "")),
                  file=sys.stdout if own else err or sys.stderr)
            if not own:
                status = max(status, 1)
        if not d["queries"]:
            print("  nothing compared: the two volumes share no query", file=err)
            status = max(status, 5)
    with open(os.path.join(out_dir, "volumes.json"), "w") as f:
        json.dump({"volumes": [{k: v for k, v in r.items() if k != "_opts"} for r in rows], "cross": cross}, f, indent=1)
    return status
