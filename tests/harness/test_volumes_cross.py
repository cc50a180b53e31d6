"""Across volumes (make volumes): each volume's truth file against the reference (one verdict per
volume), then the first volume's answers against each other's on the chunks they share. The four
stand-in volumes differ nowhere; a Mutation build with u2f's high branch removed is named with the
function and the chunks where its answers differ."""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(ROOT, "standin")
FOUR = ["standin/standin.elf"] + [f"standin/volumes/{v}/standin-stripped.elf" for v in ("mut", "out", "qua")]
MUT_ROW = "0x00413800 0x00392A70 0x00774B00"


def volumes(tmp_path, images, *extra):
    return subprocess.run([sys.executable, "-m", "harness", "volumes", "--images", " ".join(images),
                           "--out", str(tmp_path / "vols"), *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_the_four_stand_in_volumes_answer_alike(tmp_path):
    r = volumes(tmp_path, FOUR, "--n", "8")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for v in ("INF (Infection)", "MUT (Mutation)", "OUT (Outbreak)", "QUA (Quarantine)"):
        assert f"  {v} " in r.stdout and r.stdout.split(f"  {v} ")[1].split("\n")[0].endswith(": PASS")
    for v in ("MUT", "OUT", "QUA"):
        line = r.stdout.split(f"INF against {v}: ")[1].split("\n")[0]
        assert line.startswith("8 shared chunks, ") and line.endswith(" queries compared, 0 chunks differ"), line
    cross = json.load(open(tmp_path / "vols" / "volumes.json"))["cross"]
    assert [c["b"] for c in cross] == ["mut", "out", "qua"]
    assert all(c["queries"] > 0 and c["by_function"] == {} for c in cross)


def test_a_volume_with_one_function_changed_is_named_with_the_function_and_its_chunks(tmp_path):
    if shutil.which("mipsel-linux-gnu-gcc") is None:
        pytest.skip("no gcc-mipsel-linux-gnu to build the changed volume (make cross)")
    build = tmp_path / "mut"
    build.mkdir()
    for name in ("src", "standin.ld", "prg.ld", "retail.py", "Makefile"):
        (shutil.copytree if name == "src" else shutil.copy)(os.path.join(STANDIN, name), build / name)
    with open(os.path.join(STANDIN, "mutants", "u2f_signed.patch")) as patch:
        subprocess.run(["patch", "-s", "-p1"], cwd=build, stdin=patch, check=True)
    subprocess.run(["make", "-s", "-C", str(build), "OUT=standin.elf", "BUILD=build", f"VOL_ADDR={MUT_ROW}",
                    f"SYNTH={os.path.join(ROOT, 'build', 'synth')}", f"PY={sys.executable}"],
                   check=True, capture_output=True, timeout=600)
    changed = ["eldl.cmp::ANM_eldlmag0", "cbu3body.cmp::ANM_cbu3nut2"]
    alike = "xdl_load.cmp::ANM_xdl_load002"
    r = volumes(tmp_path, ["standin/standin.elf", str(build / "standin-stripped.elf")],
                "--chunks", ",".join(changed + [alike]), "--check", "controllers")
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-3000:]          # its own verdict: the reference
    assert "  INF (Infection) standin/standin.elf: PASS" in r.stdout
    assert "MUT (Mutation)" in r.stdout and ": FAIL (exit 1)" in r.stdout
    cross = json.load(open(tmp_path / "vols" / "volumes.json"))["cross"]
    assert sorted(cross[0]["by_function"]) == ["SetAnmCtrlWork"]
    named = sorted(cross[0]["by_function"]["SetAnmCtrlWork"])
    assert named and set(named) <= set(changed) and alike not in named      # the patch's cases, where it shows
    assert "INF against MUT: 3 shared chunks, " in r.stdout
    assert " differ (a finding for the port, not a failure)" in r.stdout
    for chunk in named:
        assert f"  SetAnmCtrlWork: {chunk} (queries " in r.stdout


def test_fewer_than_two_volumes_or_mismatched_lists_are_one_line_exit_2(tmp_path):
    for extra in ([], ["--datas", "a.bin"]):
        images = FOUR[:1] if not extra else FOUR[:2]
        r = volumes(tmp_path, images, *extra)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "volumes:" in r.stderr, r.stderr
