"""harness/checks/ holds one module per check and the registry lists every one (issue 19):
a check module the registry misses would silently never run."""
import importlib
import inspect
import os
import pkgutil
import subprocess
import sys

import harness.checks as checks


def check_modules():
    here = os.path.dirname(checks.__file__)
    return sorted(info.name for info in pkgutil.iter_modules([here]))


def test_every_module_in_harness_checks_is_in_the_registry():
    names = check_modules()
    assert len(names) >= 6
    listed = {m.__name__.rsplit(".", 1)[1] for m in checks.MODULES}
    assert set(names) == listed, f"not in harness.checks.MODULES: {sorted(set(names) - listed)}"


def test_every_registered_check_has_the_face_a_chunk_calls():
    for name in check_modules():
        m = importlib.import_module(f"harness.checks.{name}")
        assert checks.REGISTRY[m.NAME] is m, name
        assert list(inspect.signature(m.applies).parameters) == ["anim", "prof", "file_ok"], name
        assert list(inspect.signature(m.run).parameters) == ["game", "ch", "anim", "ctx", "tally", "prof",
                                                             "rng", "speed"], name


def test_the_selectable_names_are_the_registry_and_its_aliases_and_the_cli_offers_them():
    assert set(checks.NAMES) == set(checks.REGISTRY) | set(checks.ALIASES)
    assert set(checks.ALIASES.values()) <= set(checks.REGISTRY)
    out = subprocess.run([sys.executable, "-m", "harness", "bulk", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert "{" + ",".join(checks.NAMES) + "}" in out.replace("\n", "").replace(" ", "")
