"""The ground floor (ground/): the plumbing every package shares. A file is written whole or not
at all, and a failed write names the file in the caller's own error; the vocabulary lists each
alias after the check it selects, and the query kinds are the ones the truth comparison, the
export and the reference's serve know."""
import os

import pytest

from ground import vocabulary
from ground.files import write_atomic
from reports import ReportError


def test_an_atomic_write_replaces_the_file_whole(tmp_path):
    path = tmp_path / "summary.json"
    path.write_text("old")
    write_atomic(path, lambda tmp: tmp.write_text("new"))
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["summary.json"]


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temp_file_and_names_the_file(tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old")

    def half(tmp):
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(ReportError, match=rf"^cannot write {path}: No space left on device$"):
        write_atomic(path, half, ReportError)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["report.html"]
    with pytest.raises(OSError, match="cannot write"):          # no error class: an OSError
        write_atomic(tmp_path / "missing" / "x.json", lambda tmp: tmp.write_text("x"))


def test_the_vocabulary_names_every_alias_after_its_check_in_run_order():
    assert vocabulary.CHECK_NAMES[:2] == ("controllers", "multistep")
    assert [n for n in vocabulary.CHECK_NAMES if n not in vocabulary.ALIASES] == list(vocabulary.CHECKS)
    assert set(vocabulary.LEDGER_KINDS.values()) <= set(vocabulary.CHECKS)


def test_the_query_kinds_are_said_once_and_each_is_compared_exported_and_answered():
    from harness import checks
    from harness.truth import check, queries
    from reference import serve
    assert set(vocabulary.QUERY_KINDS.values()) == set(vocabulary.CHECKS)
    assert all(check.check_of(k) == c for k, c in vocabulary.QUERY_KINDS.items())
    assert set(check.comparisons()) == set(vocabulary.QUERY_KINDS)
    assert [k for c in vocabulary.CHECKS for k in queries.kinds_of(c)] == list(vocabulary.QUERY_KINDS)
    assert list(queries.exporters()) == list(vocabulary.CHECKS)
    declared = {k for k, (_, kind) in checks.query_kinds().items() if kind.answer is not None}
    assert all(k in serve.KINDS or k in declared for k in vocabulary.QUERY_KINDS)      # each answered
    assert [k for k in vocabulary.QUERY_KINDS if k in serve.KINDS] == list(serve.KINDS)  # in the same order


@pytest.mark.parametrize("module", ["harness.truth.check"])
def test_a_query_kind_the_vocabulary_gains_without_its_function_is_an_import_error(module, monkeypatch):
    import importlib
    mod = importlib.import_module(module)
    monkeypatch.setitem(vocabulary.QUERY_KINDS, "toy", "playback")
    try:
        with pytest.raises(ImportError, match="toy"):
            importlib.reload(mod)
    finally:
        monkeypatch.undo()
        importlib.reload(mod)


def test_the_reference_answers_the_kinds_it_models_and_refuses_another_naming_it():
    """reference/serve.py answers its own kinds only: a query of a kind the vocabulary gained with a
    check that declares its own answer is a BadRequest naming the kind, never a guess."""
    from reference import serve
    with pytest.raises(serve.BadRequest, match=r"query 3: unknown kind 'toy'"):
        serve.answer(b"", {}, "hw", [{"i": 3, "kind": "toy"}])
