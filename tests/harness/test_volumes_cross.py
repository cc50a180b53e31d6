"""Across volumes (make volumes): each volume's nightly against the reference (one verdict per
volume) and its truth file in the digest form, then each later volume's game against the first volume's
truth on the chunks they share. The four
stand-in volumes differ nowhere; a Mutation build with u2f's high branch removed is named with the
function and the chunks where its answers differ."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from harness.runners.truth_runs.volumes import answers, differences

from .native_programs import compiled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(ROOT, "standin")
FOUR = ["standin/standin.elf"] + [f"standin/volumes/{v}/standin-stripped.elf" for v in ("mut", "out", "qua")]
MUT_ROW = "0x00413800 0x00392A70 0x00774B00"


@pytest.fixture(scope="module", autouse=True)
def stand_in_compiled():
    """The four stand-in volumes hold the same code, so one native program serves them all: built
    once here, each volume's nightly and answers run it from their first instruction."""
    compiled()


def volumes(tmp_path, images, *extra):
    return subprocess.run([sys.executable, "-m", "harness", "volumes", "--images", " ".join(images),
                           "--out", str(tmp_path / "vols"), *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_the_four_stand_in_volumes_answer_alike(tmp_path):
    r = volumes(tmp_path, FOUR, "--n", "8")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for v in ("INF (Infection)", "MUT (Mutation)", "OUT (Outbreak)", "QUA (Quarantine)"):
        assert f"  {v} " in r.stdout and r.stdout.split(f"  {v} ")[1].split("\n")[0].endswith(
            ": nightly PASS, 23 chunks; game's answers written as digests")
    for v in ("MUT", "OUT", "QUA"):
        line = r.stdout.split(f"{v}'s nightly records against INF's, on the ")[1].split("\n")[0]
        assert line == "23 chunks of the same id and bytes in both (15 of them synthetic cases): identical (timings aside)"
        line = r.stdout.split(f"{v}'s game against INF's truth: ")[1].split("\n")[0]
        assert line.startswith("8 shared chunks (same id and bytes; 0 of the same id with other bytes not compared), ")
        assert line.endswith(" queries compared, 0 chunks differ"), line
    cross = json.load(open(tmp_path / "vols" / "volumes.json"))["cross"]
    assert [c["b"] for c in cross] == ["mut", "out", "qua"]
    assert all(c["queries"] > 0 and c["by_function"] == {} and c["unmatched"] == {} for c in cross)
    held = sum(len(q) for q in answers(tmp_path / "vols" / "inf.answers").values())
    assert all(c["queries"] == held for c in cross)                       # every query of INF's truth compared


def _edited(src, dst, edit):
    """A copy of the truth file `src` with edit(line) applied to its first chunk's line."""
    with open(src) as f:
        lines = f.read().splitlines()
    at = next(k for k, t in enumerate(lines) if '"queries"' in t)
    line = json.loads(lines[at])
    edit(line)
    lines[at] = json.dumps(line)
    with open(dst, "w") as f:
        f.write("\n".join(lines) + "\n")
    return line["chunk"]


def truth(out, image, *extra):
    r = subprocess.run([sys.executable, "-m", "harness", "truth", "--image", image, "--out", str(out), *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out


def test_the_digest_form_holds_the_whole_truth_files_answers(tmp_path):
    """make volumes writes the digest form; its digests are the whole file's, query by query."""
    r = volumes(tmp_path, FOUR[:2], "--n", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for key, image in (("inf", FOUR[0]), ("mut", FOUR[1])):
        whole = truth(tmp_path / f"{key}.truth", image, "--n", "2")
        digests = answers(tmp_path / "vols" / f"{key}.answers")
        assert digests and answers(whole) == digests
        assert os.path.getsize(tmp_path / "vols" / f"{key}.answers") * 20 < os.path.getsize(whole)
    r = subprocess.run([sys.executable, "-m", "harness", "check-truth", str(tmp_path / "vols" / "inf.answers")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "SHA-256 digests" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_later_volume_is_its_game_against_the_first_volumes_truth_query_by_query(tmp_path):
    args = ("--n", "2", "--check", "controllers")
    inf, mut = truth(tmp_path / "inf.truth", FOUR[0], *args), truth(tmp_path / "mut.truth", FOUR[1], *args)
    assert differences(inf, mut)["by_function"] == {}

    def one_word(line):                                                   # the game of MUT answers one word apart
        q = next(q for q in line["queries"] if q["kind"] == "controller" and q["game"].get("pos"))
        q["game"]["pos"][0][0] ^= 1
        one_word.i = q["i"]
    chunk = _edited(mut, tmp_path / "word.truth", one_word)
    d = differences(inf, tmp_path / "word.truth")
    assert d["by_function"] == {"SetAnmCtrlWork": {chunk: [one_word.i]}} and d["unmatched"] == {}

    def one_query_fewer(line):                                            # a query MUT's file does not hold
        one_query_fewer.i = line["queries"].pop()["i"]
        line["n_queries"] = len(line["queries"])                         # a whole line, one query short
    chunk = _edited(mut, tmp_path / "fewer.truth", one_query_fewer)
    d = differences(inf, tmp_path / "fewer.truth")
    assert d["unmatched"] == {chunk: [one_query_fewer.i]} and d["by_function"] == {}


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
    assert "  INF (Infection) standin/standin.elf: nightly PASS" in r.stdout
    assert "MUT (Mutation)" in r.stdout and ": nightly FAIL (mismatches, exit 1), 3 chunks" in r.stdout
    cross = json.load(open(tmp_path / "vols" / "volumes.json"))["cross"]
    assert sorted(cross[0]["by_function"]) == ["SetAnmCtrlWork"]
    named = sorted(cross[0]["by_function"]["SetAnmCtrlWork"])
    assert named and set(named) <= set(changed) and alike not in named      # the patch's cases, where it shows
    assert "MUT's game against INF's truth: 3 shared chunks (same id and bytes; " in r.stdout
    assert " differ (a finding for the port, not a failure)" in r.stdout
    for chunk in named:
        assert f"  SetAnmCtrlWork: {chunk} (queries " in r.stdout


def test_fewer_than_two_volumes_or_mismatched_lists_are_one_line_exit_2(tmp_path):
    for extra in ([], ["--datas", "a.bin"]):
        images = FOUR[:1] if not extra else FOUR[:2]
        r = volumes(tmp_path, images, *extra)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "volumes:" in r.stderr, r.stderr


def test_a_second_make_volumes_into_the_same_out_keeps_what_the_first_made_alike_and_remakes_the_rest(tmp_path):
    """Four volumes at full size take hours: a volume's nightly and answers that the same parameters
    and code made are kept (a stopped nightly resumed), anything else made afresh and said so."""
    first = volumes(tmp_path, FOUR[:2], "--n", "2", "--check", "notes")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    made = {k: os.path.getmtime(tmp_path / "vols" / f"{k}.answers") for k in ("inf", "mut")}
    again = volumes(tmp_path, FOUR[:2], "--n", "2", "--check", "notes")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    for k in ("inf", "mut"):
        assert f"vols/{k}.answers: this volume's answers, written by this code: kept" in again.stdout
        assert os.path.getmtime(tmp_path / "vols" / f"{k}.answers") == made[k]
    assert "0 chunks differ" in again.stdout and "afresh" not in again.stderr
    other = volumes(tmp_path, FOUR[:2], "--n", "2", "--check", "notes", "--seed", "5")
    assert other.returncode == 0, other.stdout[-3000:] + other.stderr[-3000:]
    for k in ("inf", "mut"):
        assert f"vols/{k}.answers: not this volume's answers with these parameters and code: written afresh" \
            in other.stderr
        assert f"vols/{k}.run was run with other parameters" in other.stderr and "its nightly is run afresh" in other.stderr


def test_a_digest_file_with_a_query_that_holds_no_digest_is_refused_naming_file_line_chunk_and_query(tmp_path):
    from harness.truth import fileformat
    r = volumes(tmp_path, FOUR[:2], "--n", "1", "--check", "notes")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    def no_digest(line):
        line["queries"][0]["game"] = "\x1b[31m0x3f800000"
    chunk = _edited(tmp_path / "vols" / "inf.answers", tmp_path / "bad.answers", no_digest)
    with pytest.raises(fileformat.TruthFileError) as e:
        answers(tmp_path / "bad.answers")
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'bad.answers'}:2: chunk {chunk} query 0: its game is ")
    assert "not a SHA-256 digest" in msg and "\x1b" not in msg
