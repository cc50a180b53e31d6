"""The ledger (checks.md §9, the exhaustive nightly): every chunk record says, per kind of record, how
many the chunk has and how many were compared; the summary, the closing block and the report sum it.
Under the nightly profile a kind with compared < present fails the run (exit 1, a named cause); the
quick profile may sample, and its ledger says what it left out. A record the harness cannot pair
with an instance is a mismatch of its own, never dropped."""
import json
import os
import subprocess
import sys


from harness.options import ROOT
from reports.ledger import left_out, lines, total
from tests.harness.mutant_elfs import built

PY = sys.executable
CHUNK = "chgate.cmp::ANM_chgate002"          # 6 object records, two of them for object 4
MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "one_instance_per_object.elf")

# The controllers check made to skip one record: the nightly profile with room for all but one of
# the chunk's object records (the check's own sampling path picks which one it leaves out).
SKIP_ONE = """
import dataclasses, sys
from harness import profiles
profiles.PROFILES["nightly"] = dataclasses.replace(profiles.PROFILES["nightly"], max_tracks=5)
from harness.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def bulk(tmp_path, name, *args, code=None):
    cmd = [PY, "-c", code, *args] if code else [PY, "-m", "harness", *args]
    out = tmp_path / name
    r = subprocess.run(cmd + ["--out", str(out), "--jobs", "1", "--seed", "4", "--no-shrink"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, EEDIFF_CACHE=str(tmp_path / "cache")))
    s = json.loads((out / "summary.json").read_text()) if (out / "summary.json").is_file() else None
    return r, s, out


def test_the_ledger_sums_kinds_and_names_what_a_profile_comparing_everything_left_out():
    led = total([{"object records": [6, 6], "tracks": [6, 6]}, {"object records": [3, 2]}, None])
    assert led == {"object records": [9, 8], "tracks": [6, 6]}
    assert lines(led) == ["compared 8 of 9 object records (1 left out)", "compared 6 of 6 tracks"]
    assert left_out(led, every_record=False) == []
    assert left_out(led, every_record=True) == [
        "object records: compared 8 of 9 (1 left out; the nightly profile compares every one)"]


def test_a_nightly_compares_every_record_and_its_ledger_says_so(tmp_path):
    r, s, out = bulk(tmp_path, "all", "bulk", "--profile", "nightly", "--chunks", CHUNK,
                     "--check", "controllers", "--check", "playback")
    assert r.returncode == 0, r.stdout + r.stderr
    assert s["status"] == "pass" and s["left_out"] == []
    assert s["ledger"] == {"object records": [6, 6], "tracks": [6, 6]}
    assert "ledger: compared 6 of 6 object records; compared 6 of 6 tracks" in r.stdout
    chunk = json.loads(next((out / "chunks").glob("*.json")).read_text())
    assert chunk["ledger"] == {"object records": [6, 6], "tracks": [6, 6]} and chunk["every_record"]
    page = (out / "report.html").read_text()
    assert "compared 6 of 6 object records" in page


def test_a_nightly_whose_check_skips_one_record_fails_with_a_named_cause(tmp_path):
    r, s, out = bulk(tmp_path, "skip", "bulk", "--profile", "nightly", "--chunks", CHUNK,
                     "--check", "controllers", code=SKIP_ONE)
    assert r.returncode == 1, r.stdout + r.stderr
    assert s["mismatches"] == 0 and s["errors"] == 0
    assert s["status"] == "left out"
    assert s["ledger"]["object records"] == [6, 5]
    assert s["left_out"] == ["object records: compared 5 of 6 (1 left out; the nightly profile compares every one)"]
    assert "FAIL (records left out) (exit 1)" in r.stdout
    assert "left out: object records: compared 5 of 6" in r.stdout
    page = (out / "report.html").read_text()
    assert "FAIL: RECORDS LEFT OUT" in page and "Left out: object records: compared 5 of 6" in page
    assert 'name="left out"' in (out / "junit.xml").read_text()


def test_the_quick_profile_samples_and_its_ledger_says_what_it_left_out(tmp_path):
    r, s, _ = bulk(tmp_path, "quick", "bulk", "--profile", "quick", "--chunks", CHUNK, "--check", "controllers")
    assert r.returncode == 0, r.stdout + r.stderr
    assert s["status"] == "pass" and s["left_out"] == []
    assert s["ledger"]["object records"] == [6, 3]
    assert "compared 3 of 6 object records (3 left out)" in r.stdout


def test_a_record_without_an_instance_is_a_playback_mismatch_naming_index_and_object(tmp_path):
    """The stand-in mutant that keeps one instance for an object with two 0x0102 records: the
    playback check names the second record (index 5, object 4) instead of leaving it out."""
    r, s, out = bulk(tmp_path, "mutant", "bulk", "--profile", "nightly", "--chunks", CHUNK,
                     "--check", "playback", "--image", built(MUTANT))
    assert r.returncode == 1, r.stdout + r.stderr
    chunk = json.loads(next((out / "chunks").glob("*.json")).read_text())
    unpaired = [m for m in chunk["mismatches"] if m["field"] == "instance"]
    assert unpaired and {(m["track"], m["object"]) for m in unpaired} == {(5, 4)}
    assert "object record 5 (object 4, kind 0x0102)" in unpaired[0]["context"]["why"]
    assert chunk["ledger"]["tracks"] == [6, 5]


def test_an_f_morpher_record_whose_morpher_has_no_instance_is_a_playback_mismatch():
    """Names that give the morpher no MPH_ instance: the playback names the morpher and its records
    instead of leaving its morph state uncompared."""
    from harness.checks import playback as P
    from harness.compare.mismatch import CaseContext
    from harness.compare.tally import Tally
    from harness.driver.game import Game
    from harness.options import DEFAULT_IMAGE, Options
    from harness.runners.cases.chunk import parse_reference
    cid = "xp_flag.cmp::ANM_xpflnut0"
    ch = Options().open_corpus().chunk(cid)
    anim = parse_reference(ch, "hw")
    game = Game(DEFAULT_IMAGE)
    names = {k: v for k, v in ch.names.items() if not v.startswith("MPH_")}
    for given, expect in ((ch.names, set()), (names, set(anim.morphs))):
        tally = Tally()
        P.check_playback(game, anim, game.load(ch.data), given, CaseContext(cid, 4, "nightly"), tally, [256] * 20)
        missing = [m for m in tally.mismatches if m["field"] == "morpher instance"]
        assert {m["object"] for m in missing} == expect
    assert expect and "F_Morpher record(s) (kind 0x1901" in missing[0]["context"]["why"]
