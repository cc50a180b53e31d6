"""The volume (volumes.md §1, §6, §7): detected from the executable by its overlay window, confirmed
by GCMN.PRG's size and FNV-1a-64 as the users' own code does, forced by VOLUME= (--volume); a
contradiction is a one-line error with exit 2. The volume is named in the probe and the run header."""
import os
import shutil
import struct
import subprocess
import sys

import pytest

from harness import HarnessError
from harness.volume import VOLUMES, by_name, fnv1a64, resolve
from tests.machine.test_elf_loader import make_elf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRIPPED = os.path.join(ROOT, "standin", "standin-stripped.elf")
ELF = os.path.join(ROOT, "standin", "standin.elf")
PROGBITS, AX = 1, 6


def harness(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "harness", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def one_line_exit_2(r, *parts):
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and all(p in lines[0] for p in parts), r.stderr


def stripped_at(tmp_path, window, overlay_bytes=b"", gp=None):
    """A stripped executable whose overlay sections sit at `window` (by position: main, four overlays, heap);
    overlay_bytes: the first overlay segment's file bytes (none on every volume); gp: its .reginfo's."""
    from eemu_ext.loading.elf import load_image
    code = bytes(16)
    secs = [("", 0x00100000, 16, PROGBITS, AX)] + [("", window, 16, PROGBITS, AX)] * 4 + [("", window + 16, 0, PROGBITS, 3)]
    raw = bytearray(make_elf([(0x00100000, code, 16), (window, overlay_bytes, 16)] + [(window, b"", 16)] * 3, secs, gp=gp))
    shoff, = struct.unpack_from("<I", raw, 0x20)
    shentsize, _, shstrndx = struct.unpack_from("<3H", raw, 0x2E)
    off, size = struct.unpack_from("<2I", raw, shoff + shstrndx * shentsize + 16)
    raw[off:off + size] = bytes(size)               # the names blanked, as on the stripped volumes
    path = tmp_path / "vol.elf"
    path.write_bytes(bytes(raw))
    return str(path), load_image(str(path))


def test_the_row_of_each_volume_is_the_spec_table():
    assert [(v.key, v.boot, hex(v.window), hex(v.gp), v.gcmn_bytes) for v in VOLUMES] == [
        ("inf", "SLUS_202.67", "0x400800", "0x37faf0", 3_121_280), ("mut", "SLUS_205.62", "0x413800", "0x392a70", 3_322_624),
        ("out", "SLUS_205.63", "0x40f200", "0x38ddf0", 3_335_680), ("qua", "SLUS_205.64", "0x301b00", "0x280770", 3_377_280)]
    assert fnv1a64(b"") == 0xCBF29CE484222325 and fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert all(v.offsets == VOLUMES[0].offsets and v.offsets["ANM_WORKS"] == 0x104 for v in VOLUMES)


@pytest.mark.parametrize("volume", VOLUMES, ids=[v.key for v in VOLUMES])
def test_a_stripped_executable_is_detected_by_its_overlay_window_found_by_position(tmp_path, volume):
    path, img = stripped_at(tmp_path, volume.window)
    assert [s.label for s in img.layout.overlays()] == ["gcmn.prg", "demo.prg", "desktop.prg", "toppage.prg"]
    assert img.layout.window == (volume.window, volume.window + 16)
    r = resolve(img, path)
    assert (r.volume, r.how) == (volume, "executable")


def test_the_stand_in_is_infection_and_names_it(tmp_path):
    from eemu_ext.loading.elf import load_image
    r = resolve(load_image(STRIPPED), STRIPPED)
    assert r.volume.key == "inf" and r.how == "executable" and r.gcmn.endswith("standin/DATA/GCMN.PRG")
    assert by_name("Mutation").key == "mut" and by_name("SLUS_205.64").key == "qua"


def test_a_gcmn_prg_of_another_volume_contradicts_the_executable(tmp_path):
    from eemu_ext.loading.elf import load_image
    gcmn = tmp_path / "GCMN.PRG"
    gcmn.write_bytes(bytes(VOLUMES[1].gcmn_bytes))
    with pytest.raises(HarnessError, match=rf"^{gcmn}: the GCMN.PRG of Mutation, but {STRIPPED} is Infection's"):
        resolve(load_image(STRIPPED), STRIPPED, gcmn=str(gcmn))
    gcmn.write_bytes(bytes(VOLUMES[0].gcmn_bytes))
    with pytest.raises(HarnessError, match=r"Infection's GCMN.PRG size, but its FNV-1a-64 0x[0-9a-f]{16} is not "
                                           r"Infection's 0x9349383e707e0cad"):
        resolve(load_image(STRIPPED), STRIPPED, gcmn=str(gcmn))


def test_volume_forces_and_a_contradiction_is_an_error(tmp_path):
    path, img = stripped_at(tmp_path, VOLUMES[3].window)
    assert resolve(img, path, "qua").how == "VOLUME=, executable"
    with pytest.raises(HarnessError, match=r"^VOLUME=out: Outbreak, but .*vol.elf is Quarantine's executable$"):
        resolve(img, path, "out")
    with pytest.raises(HarnessError, match=r"^VOLUME='lobby': not a volume \(inf \(infection\), mut"):
        resolve(img, path, "lobby")


def test_a_wrong_volume_and_a_gcmn_prg_of_another_volume_are_one_line_exit_2(tmp_path):
    one_line_exit_2(harness("probe", "--image", STRIPPED, "--volume", "mut"),
                    "VOLUME=mut: Mutation, but", "standin-stripped.elf is Infection's executable")
    one_line_exit_2(harness("probe", "--image", STRIPPED, "--volume", "vol5"), "VOLUME='vol5': not a volume")
    exe = tmp_path / "standin-stripped.elf"
    shutil.copy(STRIPPED, exe)
    shutil.copy(STRIPPED + ".syms", str(exe) + ".syms")
    (tmp_path / "DATA").mkdir()
    (tmp_path / "DATA" / "GCMN.PRG").write_bytes(bytes(VOLUMES[2].gcmn_bytes))
    one_line_exit_2(harness("bulk", "--image", str(exe), "--n", "1", "--jobs", "1", "--out", str(tmp_path / "run")),
                    "GCMN.PRG: the GCMN.PRG of Outbreak, but", "is Infection's executable")
    assert not (tmp_path / "run").exists()


def test_the_probe_names_the_volume_and_its_row():
    r = harness("probe", "--image", STRIPPED)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "  volume INF (Infection, SLUS_202.67), from executable; GCMN.PRG " in r.stdout
    assert "  volume row: gp 0x0037faf0, overlay window 0x00400800, heap 0x00730600" in r.stdout


def test_the_run_header_and_the_truth_file_header_name_the_volume(tmp_path):
    from harness.runners.bulk.command import game_side
    from harness.runners.truth_runs.truth_export import header
    from tests.harness.test_stripped_image import opts_of
    for image in (ELF, STRIPPED):
        opts = opts_of("--image", image)
        want = {"volume": "inf", "volume_name": "Infection", "volume_from": "executable"}
        assert {k: game_side(opts)[k] for k in want} == want
        assert {k: header(opts, ["a"])[k] for k in want} == want
    path, _ = stripped_at(tmp_path, VOLUMES[1].window)
    assert game_side(opts_of("--image", path, "--volume", "mutation"))["volume_from"] == "VOLUME=, executable"


@pytest.mark.parametrize("volume", VOLUMES, ids=[v.key for v in VOLUMES])
def test_a_stripped_volume_without_reginfo_takes_its_rows_gp_and_one_with_it_keeps_its_own(tmp_path, volume):
    from harness.driver.volumes import gp_of
    _, img = stripped_at(tmp_path, volume.window)
    assert img.gp == 0 and gp_of(img) == volume.gp
    (tmp_path / "own").mkdir()
    _, own = stripped_at(tmp_path / "own", volume.window, gp=0x00123450)
    assert gp_of(own) == own.gp == 0x00123450


@pytest.mark.parametrize("volume", VOLUMES[1:], ids=[v.key for v in VOLUMES[1:]])
def test_file_bytes_at_a_volumes_own_overlay_window_are_refused_at_load(tmp_path, volume):
    from eemu_ext.errors import ElfError
    with pytest.raises(ElfError, match=f"program header 1 at the overlay base 0x{volume.window:08x} has 0x10 file bytes"):
        stripped_at(tmp_path, volume.window, overlay_bytes=bytes(16))


def test_a_volumes_index_tables_come_from_its_row_unless_the_sidecar_names_them(tmp_path):
    from tests.harness.test_stripped_image import opts_of
    from harness.options import DEFAULT_DATA
    path, _ = stripped_at(tmp_path, VOLUMES[2].window)
    assert opts_of("--image", path, "--data", DEFAULT_DATA).sidecar_symbols() == {
        "categoryFDTbl": 0x00308700, "cateCDOfsTbl": 0x00308750}
    (tmp_path / "x").mkdir()
    plain, _ = stripped_at(tmp_path / "x", 0x00500000)
    assert opts_of("--image", plain, "--data", DEFAULT_DATA).sidecar_symbols() is None   # no volume named
    side = opts_of("--image", STRIPPED, "--data", DEFAULT_DATA).sidecar_symbols()
    rows = {r.split("\t")[4]: int(r.split("\t")[1], 16) for r in open(STRIPPED + ".syms") if "CDOfs" in r or "FDTbl" in r}
    assert {k: side[k] for k in rows} == rows and rows["categoryFDTbl"] != VOLUMES[0].category_fd


def test_the_probe_counts_the_executable_up_to_its_volumes_heap():
    from harness.runners.probing.probe import Report, Watch
    from harness.driver.game import Game
    exe = os.path.join(ROOT, "standin", "volumes", "qua", "standin-stripped.elf")
    r = Report(exe, [])
    w = Watch(Game(exe, syms=exe + ".syms"), r)
    assert w.image_end == VOLUMES[3].heap
    w.classify(0x00100000, "lw", VOLUMES[3].heap - 4, 4, False)
    assert r.findings == []
    w.classify(0x00100000, "lw", VOLUMES[3].heap, 4, False)
    assert [f.kind for f in r.findings] == ["outside memory"]
