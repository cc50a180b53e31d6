"""harness/checks/ holds one module per check and the registry lists every one:
a check module the registry misses would silently never run."""
import importlib
import inspect
import os
import pkgutil
import subprocess
import sys

import pytest

import harness.checks as checks
from harness.runners.bulk import selection


def check_modules():
    here = os.path.dirname(checks.__file__)
    return sorted(info.name for info in pkgutil.iter_modules([here]))


def test_every_module_in_harness_checks_is_in_the_registry():
    names = check_modules()
    assert len(names) >= 6
    listed = {c.run.__module__.rsplit(".", 1)[1] for c in checks.CHECKS}
    assert set(names) == listed, f"not in harness.checks.CHECKS: {sorted(set(names) - listed)}"
    assert len({c.order for c in checks.CHECKS}) == len(checks.CHECKS), "two checks share a place in the run"


def test_a_module_in_harness_checks_without_a_check_is_an_error(tmp_path):
    pkg = tmp_path / "loose_checks"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("NAME = 'helpers'\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ImportError, match="loose_checks.helpers: a check module defines CHECK"):
            checks.discover("loose_checks", [str(pkg)])
    finally:
        sys.path.remove(str(tmp_path))


def test_every_registered_check_has_the_face_a_chunk_calls():
    for name in check_modules():
        m = importlib.import_module(f"harness.checks.{name}")
        assert isinstance(m.CHECK, checks.Check) and m.CHECK in checks.CHECKS, name
        assert checks.get(m.CHECK.name) is m.CHECK, name
        assert list(inspect.signature(m.CHECK.applies).parameters) == ["case"], name
        assert list(inspect.signature(m.CHECK.run).parameters) == ["case"], name
        assert set(m.CHECK.kinds) <= set(selection.QUICK_TESTS), name


def test_the_selectable_names_are_the_checks_and_their_aliases_and_the_cli_offers_them():
    assert set(checks.names()) == {n for c in checks.CHECKS for n in c.names}
    assert checks.resolve("multistep") is checks.get("controllers")
    assert all(checks.resolve(n) is c for c in checks.CHECKS for n in c.names)
    out = subprocess.run([sys.executable, "-m", "harness", "bulk", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert "{" + ",".join(checks.names()) + "}" in out.replace("\n", "").replace(" ", "")
