"""The choice between compiled kernels and the Python model: with no C compiler
the Python model runs, after a one-line notice; with one, the kernels are used."""
import pytest

from reference import Animation, cbuild, kernels as K

from .helpers import build_anime, keyed, obj_track


@pytest.fixture
def fresh(monkeypatch):
    K.reset()
    yield monkeypatch
    K.reset()


def _chunk():
    return build_anime(object=1, frames=8, tracks=[obj_track(3, pos=keyed((0, (0.0, 0.0, 0.0)), (7, (1.0, 0.5, -2.0))))])


def test_no_c_compiler_runs_the_python_model_with_a_one_line_notice(fresh, capsys):
    fresh.setenv("CC", "/nonexistent/cc-for-this-test")
    assert cbuild.compiler() is None
    a = Animation.parse(_chunk())
    b = Animation.parse(_chunk())
    assert a.kernels is None and b.kernels is None
    err = capsys.readouterr().err
    lines = [l for l in err.splitlines() if l.startswith("reference:")]
    assert len(lines) == 1, err                               # once per process
    assert "no C compiler" in lines[0] and "Python float model" in lines[0]
    assert a.pose(0, 300).pos == Animation.parse(_chunk(), native=False).pose(0, 300).pos
    with pytest.raises(RuntimeError, match="unavailable"):
        Animation.parse(_chunk(), native=True)


def test_the_kernels_are_chosen_when_a_c_compiler_is_there(fresh, capsys):
    if cbuild.compiler() is None:
        pytest.skip("no C compiler on this machine (cc / $CC)")
    a = Animation.parse(_chunk())
    assert isinstance(a.kernels, K.Kernels)
    assert Animation.parse(_chunk(), native=False).kernels is None
    assert "reference:" not in capsys.readouterr().err


def test_the_python_model_can_be_selected_by_environment(fresh, capsys):
    fresh.setenv("EEDIFF_REFERENCE_NATIVE", "0")
    assert Animation.parse(_chunk()).kernels is None
    assert "EEDIFF_REFERENCE_NATIVE=0" in capsys.readouterr().err


def test_a_failing_build_falls_back_too(fresh, tmp_path, capsys):
    """A compiler that rejects the sources (here: one that always fails) is a fallback, not a crash."""
    cc = tmp_path / "cc"
    cc.write_text("#!/bin/sh\necho 'broken compiler' >&2\nexit 1\n")
    cc.chmod(0o755)
    fresh.setenv("CC", str(cc))
    fresh.setenv("EEDIFF_REFERENCE_CACHE", str(tmp_path / "cache"))
    assert K.native() is None
    assert "compiled kernels unavailable" in capsys.readouterr().err
