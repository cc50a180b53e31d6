"""A chunk record's error (interfaces.md §4): an error whose type the machine or the harness
defines explains itself (its record has no source location); any other type is a defect of ours
and keeps the line that raised it. Decided by the error's type, not by the name of its module."""
import types

from eemu_ext.errors import HostError, LockstepMismatch, MemoryFault, StepLimitExceeded
from harness import HarnessError
from harness.runners.cases.chunk import describe_error


def _raised(exc):
    try:
        raise exc
    except Exception as e:
        return e


def test_the_machine_and_the_harness_errors_explain_themselves():
    for exc in (MemoryFault("memory fault at pc 0x00100000", 0x100000), StepLimitExceeded("step limit"),
                LockstepMismatch("lockstep: differ", 0x100000), HarnessError("bad chunk"),
                HostError("native engine: the build cache build/native cannot be written")):
        rec = describe_error(_raised(exc), "notes")
        assert rec["where"] is None, rec
        assert rec["type"] == type(exc).__name__ and rec["check"] == "notes"


def test_a_host_error_is_recorded_as_the_hosts_not_the_games():
    rec = describe_error(_raised(HostError("native engine: no host C compiler")), "playback")
    assert rec["type"] == "HostError" and "pc 0x" not in rec["message"]


def test_any_other_error_keeps_where_it_was_raised():
    rec = describe_error(_raised(KeyError("x")), "notes")
    assert rec["where"].startswith("test_error_records.py:")


def test_a_lookalike_from_a_module_named_like_the_machine_is_not_trusted():
    fake = types.new_class("CacheError", (Exception,))
    fake.__module__ = "eemu_ext.engines.native.fake"
    rec = describe_error(_raised(fake("boom")), "notes")
    assert rec["where"] is not None


def test_a_lockstep_difference_and_a_host_failure_are_not_the_games_errors():
    from eemu_ext.errors import EemuError, EmulationError, EngineError
    for t in (LockstepMismatch, HostError):
        assert issubclass(t, EemuError) and not issubclass(t, EmulationError)
    assert issubclass(LockstepMismatch, EngineError) and not issubclass(HostError, EngineError)
