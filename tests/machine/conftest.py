"""Fixtures for the machine tests."""
import pytest

from eemu_ext import Machine


@pytest.fixture
def m():
    return Machine()
