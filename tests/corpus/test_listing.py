"""Finding a case: `python -m corpus list [--grep]`, "did you mean" for an unknown
CASE, and an empty CASE asked for by name."""
import os
import subprocess
import sys

from corpus import open_corpus

PY = sys.executable
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*argv, **kw):
    return subprocess.run(list(argv), cwd=ROOT, capture_output=True, text=True, timeout=300, **kw)


def test_corpus_list_prints_every_chunk_id_one_a_line():
    r = run(PY, "-m", "corpus", "list")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == open_corpus().chunk_ids()
    n = len(r.stdout.splitlines())
    assert f"{n} {'chunk' if n == 1 else 'chunks'} in" in r.stderr


def test_corpus_list_grep_keeps_the_matching_ids_in_any_case():
    r = run(PY, "-m", "corpus", "list", "--grep", "XPFLNUT")
    assert r.returncode == 0 and r.stdout.splitlines() == ["xp_flag.cmp::ANM_xpflnut0"], r.stdout + r.stderr


def test_corpus_list_grep_matching_nothing_exits_1():
    r = run(PY, "-m", "corpus", "list", "--grep", "no-such-chunk-anywhere")
    assert r.returncode == 1 and r.stdout == "" and "0 chunks" in r.stderr


def test_make_one_with_a_typo_suggests_the_chunk_meant():
    r = run("make", "-s", "one", "CASE=xp_flag.cmp::ANM_xpflnut")
    assert "no such chunk" in r.stderr and "did you mean xp_flag.cmp::ANM_xpflnut0" in r.stderr, r.stderr
    assert "corpus list --grep" in r.stderr


def test_make_one_without_case_says_case_is_required():
    r = run("make", "-s", "one")
    assert r.returncode != 0 and "CASE is required" in r.stderr and "no such chunk" not in r.stderr, r.stderr


def test_list_check_keeps_the_chunks_a_check_applies_to():
    """`corpus list --check notes`: the chunks with notes, the same the harness's note check selects."""
    from harness.runners.bulk import selection
    from corpus.listing import with_records_for
    c = open_corpus()
    ids = c.chunk_ids()
    for check in ("notes", "fobj"):
        listed = with_records_for(c, ids, check)
        assert listed and listed == selection.pool(c, selection.kinds_for([check])), check
    r = run(PY, "-m", "corpus", "list", "--check", "notes", "--grep", "xp_flag")
    assert r.returncode == 0 and "xp_flag.cmp::ANM_xp_flag004" in r.stdout.split(), r.stderr
    assert "xp_flag.cmp::ANM_xpflnut0" not in r.stdout.split()
