"""A stripped volume runs with its sidecar: IMAGE= takes it with SYMS= (default IMAGE.syms when it
exists); a DISC finds the sidecar beside its executable; --overlay NAME makes one overlay resident
from DATA/NAME.PRG beside the executable or on the disc. Records equal the unstripped stand-in's."""
import io
import os
import shutil

import pytest

from harness import HarnessError
from harness.__main__ import common, options
from harness.arguments import Parser
from harness.driver.game import REQUIRED, Game
from tests.harness.archives import small_archive

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ELF = os.path.join(ROOT, "standin", "standin.elf")
STRIPPED = os.path.join(ROOT, "standin", "standin-stripped.elf")


@pytest.fixture(autouse=True)
def python_engine(monkeypatch):
    monkeypatch.setenv("EEMU_ENGINE", "python")


def opts_of(*argv):
    p = Parser(prog="harness")
    common(p)
    return options(p.parse_args(list(argv)))


def test_the_stripped_image_finds_its_sidecar_and_the_same_required_symbols():
    a = Game(ELF)
    b = opts_of("--image", STRIPPED).validate_image()
    assert b.sym == a.sym and set(b.sym) == set(REQUIRED)


def test_syms_names_a_sidecar_elsewhere_and_without_one_the_symbols_are_missing(tmp_path):
    exe = tmp_path / "vol2.elf"
    shutil.copy(STRIPPED, exe)
    with pytest.raises(HarnessError, match="required symbols missing"):
        opts_of("--image", str(exe)).validate_image()
    side = tmp_path / "symbols" / "vol2.txt"
    side.parent.mkdir()
    shutil.copy(STRIPPED + ".syms", side)
    assert opts_of("--image", str(exe), "--syms", str(side)).validate_image().sym == Game(ELF).sym
    with pytest.raises(HarnessError, match=r"SYMS=.*nosuch.syms: no such file"):
        opts_of("--image", str(exe), "--syms", str(tmp_path / "nosuch.syms")).validate_image()


def test_a_malformed_sidecar_stops_the_run_naming_file_and_line(tmp_path):
    exe = tmp_path / "vol2.elf"
    shutil.copy(STRIPPED, exe)
    lines = open(STRIPPED + ".syms").read().splitlines()
    lines[4] = lines[4].replace("FUNC", "FUNCTION")
    (tmp_path / "vol2.elf.syms").write_text("\n".join(lines) + "\n")
    with pytest.raises(HarnessError, match=rf"{tmp_path}/vol2.elf.syms:5: type 'FUNCTION' is neither FUNC nor OBJECT"):
        opts_of("--image", str(exe)).validate_image()


def test_overlay_beside_the_executable():
    g = opts_of("--image", STRIPPED, "--overlay", "demo").validate_image()
    assert g.m.call(g.m.symbol("DemoMain__Fv")) == 0x6F6D6564
    with pytest.raises(HarnessError, match=r"--overlay 'lobby': not an overlay"):
        opts_of("--image", STRIPPED, "--overlay", "lobby").validate_image()


def test_a_disc_finds_the_sidecar_and_the_overlay_beside_its_executable(tmp_path):
    pycdlib = pytest.importorskip("pycdlib")
    data = tmp_path / "DATA.BIN"
    small_archive(str(data))
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=4)
    iso.add_directory("/DATA")
    for path, raw in (("/SLUS_202.67;1", open(STRIPPED, "rb").read()),
                      ("/SLUS_202.67.SYMS;1", open(STRIPPED + ".syms", "rb").read()),
                      ("/DATA/GCMN.PRG;1", open(os.path.join(ROOT, "standin", "DATA", "GCMN.PRG"), "rb").read()),
                      ("/DATA/DATA.BIN;1", data.read_bytes())):
        iso.add_fp(io.BytesIO(raw), len(raw), path)
    iso.write(str(tmp_path / "disc.iso"))
    iso.close()
    disc = str(tmp_path / "disc.iso")
    from harness.options import disc_executable
    exe = disc_executable(disc)                 # what an earlier run extracted beside it must not count
    if os.path.exists(exe + ".syms"):
        os.remove(exe + ".syms")
    shutil.rmtree(exe + ".DATA", ignore_errors=True)
    g = opts_of("--disc", disc, "--overlay", "gcmn").validate_image()
    assert os.path.isfile(exe + ".syms") and os.path.isfile(os.path.join(exe + ".DATA", "GCMN.PRG"))
    assert g.sym == Game(ELF).sym
    assert g.m.call(g.m.symbol("AnimCtrl__8ccPlayerFv")) == 0x6E6D6367
    with pytest.raises(HarnessError, match=r"--overlay demo.prg: no /DATA/DEMO.PRG on the disc"):
        opts_of("--disc", disc, "--overlay", "demo").validate_image()


def carried_by(tmp_path, how_of):
    """A copy of the stripped build whose sidecar gives each name of how_of that `how`."""
    exe = tmp_path / "vol2.elf"
    shutil.copy(STRIPPED, exe)
    out = []
    for line in open(STRIPPED + ".syms").read().splitlines():
        f = line.split("\t")
        out.append("\t".join(f[:5] + [how_of.get(f[4], f[5])]))
    (tmp_path / "vol2.elf.syms").write_text("\n".join(out) + "\n")
    return str(exe)


def line_of(name):
    return next(n for n, line in enumerate(open(STRIPPED + ".syms"), 1) if line.split("\t")[4] == name)


@pytest.mark.parametrize("name", ["SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki", "ccMalloc__FUi", "ccSys"])
def test_a_name_the_harness_calls_or_stubs_carried_by_an_error_prone_pass_is_refused_unless_confirmed(tmp_path, name):
    assert name in REQUIRED
    exe = carried_by(tmp_path, {name: "order", "memcpy": "data"})
    with pytest.raises(HarnessError, match=rf"^{exe}.syms:{line_of(name)}: {name} was carried by the 'order' pass, "
                                           rf"which has a measured error rate .* refused unless confirmed "
                                           rf"\(CONFIRM={name}\)$"):
        opts_of("--image", exe).validate_image()
    assert opts_of("--image", exe, "--confirm", f"memcpy,{name}").validate_image().sym == Game(ELF).sym


def test_names_carried_by_exact_or_call_or_with_no_how_and_names_the_harness_does_not_call_are_taken(tmp_path):
    hows = {name: how for name, how in zip(REQUIRED, ("call", "", "exact") * len(REQUIRED))}
    exe = carried_by(tmp_path, dict(hows, memcpy="order", copy_matrix="content"))
    assert opts_of("--image", exe).validate_image().sym == Game(ELF).sym


def test_a_refused_sidecar_row_is_one_line_on_the_terminal_and_exit_2(tmp_path):
    import subprocess
    import sys
    exe = carried_by(tmp_path, {"NoteProcess__5ccAnmFv": "pointer"})
    r = subprocess.run([sys.executable, "-m", "harness", "bulk", "--image", exe, "--n", "1", "--jobs", "1",
                        "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert not (tmp_path / "run").exists()
    assert r.stderr.strip().splitlines() == [
        f"harness: {exe}.syms:{line_of('NoteProcess__5ccAnmFv')}: NoteProcess__5ccAnmFv was carried by the 'pointer' "
        f"pass, which has a measured error rate (volumes.md §2); the harness calls or stubs it, so it is refused "
        f"unless confirmed (CONFIRM=NoteProcess__5ccAnmFv)"], r.stderr


def test_a_sidecar_that_moves_ccsys_is_refused_naming_its_line(tmp_path):
    """ccSys is where the harness wires its SYS; an address no instruction of the game uses would
    fail later as a memory fault naming neither the sidecar nor ccSys."""
    exe = tmp_path / "vol2.elf"
    shutil.copy(STRIPPED, exe)
    lines = open(STRIPPED + ".syms").read().splitlines()
    n = next(i for i, x in enumerate(lines) if x.split("\t")[4] == "ccSys")
    va = int(lines[n].split("\t")[1], 16)
    lines[n] = lines[n].replace(f"0x{va:08x}", f"0x{va + 4:08x}")
    (tmp_path / "vol2.elf.syms").write_text("\n".join(lines) + "\n")
    with pytest.raises(HarnessError, match=rf"^{tmp_path}/vol2.elf.syms:{n + 1}: ccSys at 0x{va + 4:08x}: no "
                                           r"instruction of the game's code addresses it"):
        opts_of("--image", str(exe)).validate_image()
