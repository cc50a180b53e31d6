"""`pytest -k notes` collects only tests/differential (eediff_pytest.pytest_ignore_collect). That
shortcut selects what plain pytest selects only while no test outside tests/differential carries
the word in its id or keywords: this collects the whole suite the plain way and names any that does.
"""
import os
import subprocess
import sys

import pytest

from eediff_pytest import ROOT, SHORTCUT_WORDS


def collect(*args, collect_all):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    if collect_all:
        env["EEDIFF_COLLECT_ALL"] = "1"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                        "--collect-only", "-q", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode in (0, 5), r.stdout[-3000:] + r.stderr[-3000:]
    return [line for line in r.stdout.splitlines() if "::" in line]


# ids by position: the word itself in an id would make this very test match it
@pytest.mark.parametrize("word", SHORTCUT_WORDS, ids=[f"shortcut{i}" for i in range(len(SHORTCUT_WORDS))])
def test_no_test_outside_tests_differential_carries_a_shortcut_word(word):
    plain = collect("-k", word, collect_all=True)
    outside = [t for t in plain if not t.startswith("tests/differential/")]
    assert plain, f"-k {word} selects nothing at all"
    assert not outside, (f"{len(outside)} tests outside tests/differential match {word!r}, so "
                         f"`pytest -k {word}` would skip them (rename them, or drop {word!r} from "
                         f"eediff_pytest.SHORTCUT_WORDS): {outside[:10]}")
    assert collect("-k", word, collect_all=False) == plain
