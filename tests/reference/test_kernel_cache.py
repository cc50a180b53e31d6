"""The reference's kernels are built through ground/ccache.py (the build cache the machine shares): a
cached library is used only when it matches the checksum written at its build; a truncated one
is built again, never handed to the loader."""
import os

import pytest

from ground import ccache
from reference import cbuild, kernels as K


def test_a_truncated_kernel_library_is_built_again(monkeypatch, tmp_path):
    if cbuild.compiler() is None:
        pytest.skip("no C compiler on this machine (cc / $CC)")
    monkeypatch.setenv("EEDIFF_REFERENCE_CACHE", str(tmp_path / "cache"))
    lib = cbuild.build(K.SOURCES, "kernels")
    whole = os.path.getsize(lib)
    with open(lib, "r+b") as f:
        f.truncate(whole // 3)
    assert cbuild.build(K.SOURCES, "kernels") == lib
    assert os.path.getsize(lib) == whole and ccache.intact(os.path.dirname(lib))
    assert K.Kernels(lib) is not None


def test_a_kernel_cache_that_is_a_file_is_a_build_error_naming_it(monkeypatch, tmp_path):
    if cbuild.compiler() is None:
        pytest.skip("no C compiler on this machine (cc / $CC)")
    (tmp_path / "cache").write_text("")
    monkeypatch.setenv("EEDIFF_REFERENCE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(cbuild.BuildError, match="cache"):
        cbuild.build(K.SOURCES, "kernels")
