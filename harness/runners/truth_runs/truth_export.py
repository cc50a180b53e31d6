"""`python -m harness truth` (`make truth`): the game's answers to the checks' queries over bulk's
selection, written one chunk at a time (docs/truth.md §1-§2).

DECISION: only the archive's chunks are exported. The synthetic Modify blends and the edge chunks
beyond the disc are built by code (harness/runners/cases/morph_pseudo.py, edge_chunks.py), not read
from the archive a truth file names, so `make bulk` keeps checking them.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time as _time

from corpus.names import counted, printable
from ground.exits import NOTHING_COMPARED

from harness import HarnessError
from harness.profiles import run_profile
from harness.truth import fileformat, outputs
from harness.truth.queries import chunk_line


# -- the run --------------------------------------------------------------------------------------
_W = {}


def _init(opts, digests=False):
    _W["opts"] = opts
    _W["digests"] = digests
    _W["prof"] = run_profile(opts)
    _W["corpus"] = opts.open_corpus()
    _W["game"] = None


def _one(task):
    """A worker's chunk line, already JSON (workers return text, the parent only writes it)."""
    index, cid = task
    opts, prof = _W["opts"], _W["prof"]
    if _W["game"] is None:
        _W["game"] = opts.validate_image()
    line = chunk_line(_W["game"], _W["corpus"].chunk(cid), index, opts, prof, opts.checks)
    if line.get("error"):
        _W["game"] = None                  # a fresh machine after an emulation error
    return fileformat.chunk_text(fileformat.digested(line) if _W["digests"] else line), bool(line.get("error"))


def selection(opts):
    """The chunk ids `make bulk` would check with these options (its selection code), without the
    cases built by code (see the module's DECISION)."""
    from harness.runners.bulk import selection as sel
    corpus = opts.open_corpus()
    if opts.chunk_ids:
        known = set(corpus.chunk_ids())
        bad = [c for c in opts.chunk_ids if c not in known]
        if bad:
            raise HarnessError(f"--chunks: no such chunk {printable(bad[0])} in {printable(opts.data or opts.disc)}")
        return list(opts.chunk_ids)
    ids, _, _ = sel.quirk_sample(corpus, sel.pool(corpus, sel.kinds_for(opts.checks)), opts.n, opts.seed)
    return ids


def header(opts, ids, digests=False):
    from harness.runners.bulk.run import code_version, file_identity
    h = {"format": fileformat.FORMAT, "version": fileformat.VERSION,
            "image": file_identity(opts.image), "data": file_identity(opts.data_path()),
            "disc": file_identity(opts.disc) if opts.disc else None,
            "seed": opts.seed, "profile": opts.profile, "float_model": opts.float_model, "n": opts.n,
            "checks": sorted(opts.checks) if opts.checks else None, "chunks": len(ids), "code": code_version()}
    from harness.volume import identity
    h.update(identity(opts))
    if digests:
        h["answers"] = fileformat.DIGESTS
    # DECISION: no date in the header: the same seed, options, files and code give the same bytes
    return h


def export(opts, out_path, jobs=1, progress=sys.stderr, digests=False):
    """Write the truth file of opts' selection to out_path; returns (chunks, chunks with an error).
    digests: in the digest form (fileformat.digested), for make volumes."""
    from harness.options import DEFAULT_DATA
    data = None if opts.disc else opts.data or DEFAULT_DATA
    outputs.check_output(out_path, "--out", [opts.image, data, opts.disc], partial=True)
    ids = selection(opts)
    opts.validate_image()
    w = fileformat.Writer(out_path, header(opts, ids, digests))
    tasks = list(enumerate(ids))
    bar = progress_line(progress, len(tasks), "truth")
    errors = 0
    done = 0
    try:
        if jobs > 1 and len(tasks) > 1:
            ctx = mp.get_context("fork")
            with ctx.Pool(jobs, initializer=_init, initargs=(opts, digests)) as pool:
                # imap keeps the selection's order: the file is the same whatever the jobs
                for text, bad in pool.imap(_one, tasks, chunksize=1):
                    w.chunk(text)
                    done += 1
                    errors += bad
                    bar.update(done - 1, 0, bad)
        else:
            _init(opts, digests)
            for task in tasks:
                text, bad = _one(task)
                w.chunk(text)
                done += 1
                errors += bad
                bar.update(done - 1, 0, bad)
    except BaseException:
        w.abandon()
        raise
    w.close()
    bar.finish()
    return len(tasks), errors


class _Silent:
    def update(self, *_):
        pass

    def finish(self):
        pass


def progress_line(out, total, label):
    """bulk's progress line (a line a minute without a terminal, an ETA, the time elapsed) for an
    export of `total` chunks, or a silent one when out is None."""
    from harness.runners.bulk.terminal import Progress
    return _Silent() if out is None else Progress(total, 0, out, label=label)


def run_truth(opts, out_path, jobs, err=None, digests=False):
    err = err or sys.stderr
    t0 = _time.time()
    n, errors = export(opts, out_path, jobs=jobs, progress=err, digests=digests)
    size = os.path.getsize(out_path)
    print(printable(f"truth{' (answer digests)' if digests else ''}: {counted(n, 'chunk')} written to {out_path} ({size / 1e6:.1f} MB, "
                    f"{_time.time() - t0:.1f} s)" + (f"; {counted(errors, 'chunk')} stopped by an error "
                                                     f"(their lines say which check and why)" if errors else "")))
    if n == 0:
        print("truth: nothing selected: the file holds no chunk", file=err)
        return NOTHING_COMPARED
    return 1 if errors else 0
