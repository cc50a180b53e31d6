"""Fixtures for the machine tests: every test runs once per engine.

The autouse ``engine`` fixture sets EEMU_ENGINE for the test, so every Machine() the test makes,
directly or through a helper, runs that engine: the Python engine, and the native engine (which
needs a host C compiler; without one its half of the suite skips and says so). Under the native
engine a program is compiled at once (EEMU_COMPILE_AFTER=0): a test's few instructions would
otherwise stay under the tiering threshold and run in the Python engine. EEMU_TEST_ENGINES (a
comma-separated list, default "python,native") chooses the engines: "lockstep" runs every test with
both engines compared block by block.
"""
import os

import pytest

from eemu_ext import Machine
from eemu_ext.engines.native.build import compiler


ENGINES = [e.strip() for e in (os.environ.get("EEMU_TEST_ENGINES") or "python,native").split(",") if e.strip()]


@pytest.fixture(autouse=True, params=ENGINES)
def engine(request, monkeypatch):
    if request.param not in ("python", "native", "lockstep"):
        raise ValueError(f"EEMU_TEST_ENGINES: no engine {request.param!r} (python, native, lockstep)")
    if request.param != "python" and compiler() is None:
        pytest.skip("no host C compiler: the native engine cannot run here")
    monkeypatch.setenv("EEMU_ENGINE", request.param)
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    return request.param


@pytest.fixture
def m(engine):
    return Machine()
