"""A run passes only when it compared everything it says it did, and nothing from a data
file runs or reaches a terminal raw. Each test builds the input that gave a false green (or ran a
command) and checks the exit status and what summary.json, report.html and junit.xml say."""
import glob
import html
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from harness.options import ROOT
from harness.runners.cases import edge_chunks

from corpus.ccsf import CcsfFile

from . import archives

PY = sys.executable
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
QUICK = ["--profile", "quick", "--seed", "4", "--no-shrink"]


def env_for(tmp_path):
    return dict(os.environ, EEDIFF_CACHE=str(tmp_path / "cache"))


def harness(tmp_path, *args, timeout=300, **kw):
    return subprocess.run([PY, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env_for(tmp_path), **kw)


def bulk(tmp_path, out, *args, **kw):
    return harness(tmp_path, "bulk", "--out", str(out), "--jobs", "1", *QUICK, *args, **kw)


def summary(run):
    return json.loads((run / "summary.json").read_text())


def junit_cases(run):
    root = ET.parse(run / "junit.xml").getroot()
    return [(s.get("name"), tc) for s in root for tc in s.iter("testcase")]


def markers():
    return sorted(glob.glob(os.path.join(ROOT, f"{archives.MARK}-*")))


# -- safe repro lines -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    data, ids = archives.hostile_archive(str(tmp / "dir with space" / "it's $(touch zzpw-p)" / "DATA.BIN"))
    elf = archives.return_at_once_elf(str(tmp / "ret urn's.elf"), tables_for=data)
    run = tmp / "run"
    r = bulk(tmp, run, "--data", data, "--image", elf, "--check", "controllers", "--n", "100000")
    return tmp, data, elf, ids, run, r


def repro_lines(run, printed):
    """Every repro command the run printed: terminal, chunks/*.json, junit.xml, report.html."""
    lines = set(re.findall(r"(\.venv/bin/python -m harness \S.*)$", printed, re.M))

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "repro" and isinstance(v, str):
                    lines.add(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for p in (run / "chunks").glob("*.json"):
        walk(json.loads(p.read_text()))
    for tc in ET.parse(run / "junit.xml").getroot().iter("failure"):
        lines.update(m.strip() for m in re.findall(r"repro: (.*)", tc.text or ""))
    page = (run / "report.html").read_text()
    markup = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    lines.update(html.unescape(c) for c in re.findall(r'data-copy="([^"]*)"', markup))
    data = json.loads(html.unescape(re.search(r'id="eediff-data">(.*?)</script>', page, re.S).group(1)))
    walk(data)
    return sorted(lines)


def test_hostile_names_run_no_command_and_every_printed_repro_reproduces_its_case(hostile_run):
    """Names with `';touch X;'`, `$(shell touch X)`, backquotes and escape sequences, in a path
    with a space and a quote: every repro line the run printed (terminal, JSON, JUnit, the HTML
    copy buttons) runs in a shell, reproduces its case (exit 1: the controller mismatches of
    the return-at-once executable) and creates nothing."""
    tmp, data, elf, ids, run, r = hostile_run
    assert len(ids) == 3 and any("$(shell" in i for i in ids) and any("\x1b" in i for i in ids)
    assert r.returncode == 1, r.stderr[-2000:]
    one = harness(tmp, "one", "--case", ids[0], "--data", data, "--image", elf, "--check", "controllers",
                  "--no-shrink")
    assert one.returncode == 1, one.stderr
    lines = repro_lines(run, r.stdout + r.stderr + one.stdout + one.stderr)
    assert len(lines) >= 4 and all(l.startswith(".venv/bin/python -m harness ") for l in lines), lines
    assert not markers()
    for line in lines:
        assert all(c.isprintable() for c in line), repr(line)
        p = subprocess.run(["bash", "-c", line.replace(".venv/bin/python", PYTHON, 1)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300, env=env_for(tmp))
        assert p.returncode == 1, (line, p.stdout[-1000:], p.stderr[-1000:])
        assert "controller" in p.stdout and "no such chunk" not in p.stderr
        assert not markers(), (line, markers())
    assert not os.path.exists(os.path.join(ROOT, "zzpw-p"))


def test_hostile_names_reach_no_terminal_json_junit_or_html_raw(hostile_run):
    """Control characters of names are shown escaped everywhere (\\x1b), never raw."""
    tmp, data, elf, ids, run, r = hostile_run
    assert "\x1b" not in r.stdout + r.stderr and "\x9b" not in r.stdout + r.stderr
    for p in [run / "junit.xml", run / "report.html", run / "summary.json", *(run / "chunks").glob("*.json")]:
        text = p.read_text(encoding="utf-8")
        assert not any(ord(c) < 0x20 and c not in "\n\t" or 0x7f <= ord(c) < 0xa0 for c in text), p
    names = {tc.get("name") for _, tc in junit_cases(run)}
    assert r"\x1b[31mred\x1b[0m.cmp::\x1b]0;T\x07$(shell touch zzpw-c)" in names
    assert r"\x1b]0;T\x07$(shell touch zzpw-c)" in (run / "report.html").read_text()
    rec = json.loads(next((run / "chunks").glob("00001.json")).read_text())
    assert rec["chunk"] == ids[1]          # JSON keeps the id exactly (escaped by JSON itself)


def test_make_one_passes_a_hostile_case_and_a_path_with_spaces_untouched(hostile_run):
    """The Makefile quotes every variable: `make one CASE=<hostile id> DATA=<path with spaces>`
    runs that case (and nothing else); make's $(shell ...) and the shell's quoting never open."""
    tmp, data, elf, ids, run, r = hostile_run
    p = subprocess.run(["make", "-s", "-o", ".venv/.eediff-installed", "one", f"CASE={ids[0]}",
                        f"DATA={data}", f"IMAGE={elf}", "CHECK=controllers", "PROFILE=quick"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300, env=env_for(tmp))
    assert "controller" in p.stdout and "no such chunk" not in p.stderr, p.stderr[-2000:]
    assert p.returncode == 2 and "Error 1" in p.stderr      # make reports the harness's exit 1
    assert not markers()


# -- a run's verdict counts what was compared --------------------------------------------------

def test_a_truncated_archive_is_an_error_of_the_run_listed_everywhere(tmp_path):
    """The last member cut in half: its chunk is unreadable. Before, the run said PASS over the
    chunks that were left; now the exit status is 2 and summary, report and JUnit name the member,
    its offset, the kind and the reason; --allow-bad-members accepts it."""
    full = archives.small_archive(str(tmp_path / "full" / "DATA.BIN"))
    blob = open(full, "rb").read()
    last = blob.rfind(b"\x1f\x8b\x08", 0, len(blob))
    cut = tmp_path / "DATA.BIN"
    cut.write_bytes(blob[:last + (len(blob) - last) // 2])
    r = bulk(tmp_path, tmp_path / "run", "--data", str(cut), "--check", "controllers", "--n", "100000")
    assert r.returncode == 2, r.stdout + r.stderr
    s = summary(tmp_path / "run")
    assert s["status"] == "bad members" and s["archive_chunks"]["done"] == 2 and s["mismatches"] == 0
    assert s["chunks_total"] == 2 + len(edge_chunks.ids(["controllers"]))     # the edge chunks join
    (bad,) = s["bad_members"]
    assert bad["member"] == archives.SMALL[2] and bad["offset"] == last and bad["kind"] == "gzip"
    assert "truncated" in bad["error"]
    assert f"bad member {archives.SMALL[2]} at offset 0x{last:X}" in r.stderr
    assert "FAIL (bad archive members) (exit 2)" in r.stdout
    page = (tmp_path / "run" / "report.html").read_text()
    assert "FAIL: BAD MEMBERS" in page and "1 bad archive member<" in page and f"0x{last:X}" in page
    (tc,) = [tc for suite, tc in junit_cases(tmp_path / "run") if suite == "archive"]
    assert tc.find("error").get("type") == "bad member" and "truncated" in tc.find("error").get("message")

    ok = bulk(tmp_path, tmp_path / "allowed", "--data", str(cut), "--check", "controllers", "--n", "100000",
              "--allow-bad-members")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (tc,) = [tc for suite, tc in junit_cases(tmp_path / "allowed") if suite == "archive"]
    assert tc.find("skipped") is not None and summary(tmp_path / "allowed")["status"] == "pass"


def test_a_flipped_crc_bit_fails_the_run_and_the_differential_suite(tmp_path):
    """One CRC bit flipped: a bad member the run and `pytest tests/differential` both refuse."""
    path = archives.small_archive(str(tmp_path / "DATA.BIN"))
    blob = bytearray(open(path, "rb").read())
    _, offset, csize, _ = archives.LAYOUT[path][0]
    blob[offset + csize - 8] ^= 0x01             # the first member's stored CRC32
    open(path, "wb").write(blob)
    r = bulk(tmp_path, tmp_path / "run", "--data", path, "--check", "controllers", "--n", "100000")
    assert r.returncode == 2 and "CRC32 mismatch" in r.stderr, r.stderr
    assert summary(tmp_path / "run")["bad_members"][0]["member"] == archives.SMALL[0]
    t = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/differential",
                        "-k", "controllers", f"--data={path}", "--chunks=1"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env=env_for(tmp_path))
    assert t.returncode != 0 and re.search(r"bad members? in", t.stdout) and "CRC32 mismatch" in t.stdout, t.stdout[-3000:]


def test_an_empty_archive_compares_nothing_and_says_so(tmp_path):
    """0 chunks: before, "0/0 chunks, PASS, exit 0"; now status "nothing compared", exit 5."""
    empty = tmp_path / "DATA.BIN"
    empty.write_bytes(b"")
    r = bulk(tmp_path, tmp_path / "run", "--data", str(empty), "--n", "100000")
    assert r.returncode == 5, r.stdout + r.stderr
    s = summary(tmp_path / "run")
    assert s["status"] == "nothing compared" and s["chunks_total"] == 0
    assert "0 chunks selected" in s["nothing_compared"][0] and "NOTHING COMPARED (exit 5)" in r.stdout
    page = (tmp_path / "run" / "report.html").read_text()
    assert '<span class="verdict nothing">NOTHING COMPARED</span>' in page and ">PASS<" not in page
    root = ET.parse(tmp_path / "run" / "junit.xml").getroot()
    assert int(root.get("tests")) >= 1 and int(root.get("errors")) >= 1
    assert root.find("testsuite[@name='run']/testcase/error").get("type") == "nothing compared"


def test_a_selected_check_that_ran_on_no_chunk_is_not_a_pass(tmp_path):
    """`--check notes` on chunks without notes (before: PASS, JUnit tests="0"), and
    `one --check notes` on such a chunk (the README's example), exit 5."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"), names=archives.SMALL[:1])
    cid = f"{archives.SMALL[0]}::ANM_eq077000"
    r = bulk(tmp_path, tmp_path / "run", "--data", data, "--chunks", cid, "--check", "notes")
    assert r.returncode == 5, r.stdout + r.stderr
    s = summary(tmp_path / "run")
    assert s["status"] == "nothing compared" and "the selected check notes ran on no chunk" in s["nothing_compared"]
    one = harness(tmp_path, "one", "--data", data, "--case", cid, "--check", "notes")
    assert one.returncode == 5 and "nothing compared" in one.stderr, one.stdout + one.stderr


def test_make_report_refuses_a_directory_that_is_not_a_run(tmp_path):
    """Before: a green PASS, and files written into the directory. Now exit 2 and nothing written."""
    d = tmp_path / "not a run"
    d.mkdir()
    p = subprocess.run(["make", "-s", "-o", ".venv/.eediff-installed", "report", f"RUN={d}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "not a run directory" in p.stderr, p.stderr
    assert list(d.iterdir()) == []


def test_an_executable_that_compiles_no_controllers_fails(tmp_path):
    """ConvLCNum2ALCNum patched to `jr ra; nop`: every object record has "no controller" and every
    direct light record "no light controller", which used to count and pass; now each is a
    controllers mismatch and the run exits 1."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"))
    elf = archives.return_at_once_elf(str(tmp_path / "ret.elf"), tables_for=data)
    r = bulk(tmp_path, tmp_path / "run", "--data", data, "--image", elf, "--check", "controllers", "--n", "100000")
    assert r.returncode == 1, r.stdout + r.stderr
    s = summary(tmp_path / "run")
    uncompiled = s["counters"]["no controller"] + s["counters"]["no light controller"]
    assert s["counters"]["no controller"] > 0 and s["counters"]["no light controller"] > 0
    assert s["checks"]["controllers"]["mismatches"] == uncompiled
    assert s["status"] == "mismatches" and s["counters"].get("cases", 0) == 0
    fails = [tc for suite, tc in junit_cases(tmp_path / "run") if suite == "controllers" and tc.find("failure") is not None]
    assert len(fails) == 3 + len(edge_chunks.ids(["controllers"]))     # the edge chunks fail too
    good = bulk(tmp_path, tmp_path / "good", "--data", data, "--check", "controllers", "--n", "100000")
    assert good.returncode == 0 and summary(tmp_path / "good")["counters"].get("no controller", 0) == 0


# -- runs stay whole ---------------------------------------------------------------------------

def test_resume_and_out_refuse_other_parameters_naming_them(tmp_path):
    """Before, --resume/--out took another seed or executable and mixed results; now they refuse
    (exit 2, naming each difference) unless --force."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"), names=archives.SMALL[:2])
    run = tmp_path / "run"
    first = bulk(tmp_path, run, "--data", data, "--check", "controllers", "--n", "100000")
    assert first.returncode == 0, first.stderr
    again = harness(tmp_path, "bulk", "--resume", str(run), "--jobs", "1", "--data", data, "--check",
                    "controllers", "--n", "100000", "--profile", "nightly", "--seed", "5", "--float-model", "trunc")
    assert again.returncode == 2
    for diff in ("seed: run 4, now 5", "profile: run quick, now nightly", "float model: run hw, now trunc"):
        assert diff in again.stderr, again.stderr
    elf = archives.return_at_once_elf(str(tmp_path / "ret.elf"), tables_for=data)
    other = bulk(tmp_path, run, "--data", data, "--check", "controllers", "--n", "100000", "--image", elf)
    assert other.returncode == 2 and "executable sha256: run " in other.stderr, other.stderr
    forced = bulk(tmp_path, run, "--data", data, "--check", "controllers", "--n", "100000", "--seed", "4",
                  "--image", elf, "--force")
    assert forced.returncode == 0 and "--force: resuming" in forced.stderr, forced.stderr


def _procs_with(text):
    out = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            cmd = open(os.path.join(d, "cmdline"), "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd:
            out.append(int(os.path.basename(d)))
    return out


def _start_bulk(tmp_path, run, data):
    return subprocess.Popen([PY, "-m", "harness", "bulk", "--out", str(run), "--jobs", "2", *QUICK,
                             "--data", data, "--n", "100000"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env_for(tmp_path))


def _wait_for_chunk(run, proc, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if list((run / "chunks").glob("*.json")) if (run / "chunks").is_dir() else []:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("no chunk finished")


def test_sigterm_is_handled_like_ctrl_c_with_a_summary_and_a_resume_line(tmp_path):
    """A CI timeout's SIGTERM used to leave no summary; now: summary.json (interrupted), the
    report, exit 130, no worker left behind, and a resume line that finishes the run."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"))
    run = tmp_path / "run"
    p = _start_bulk(tmp_path, run, data)
    _wait_for_chunk(run, p)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    s = summary(run)
    assert s["interrupted"] and s["status"] == "interrupted" and s["chunks_done"] < s["chunks_total"]
    assert "INTERRUPTED" in (run / "report.html").read_text()
    assert not _procs_with(str(run)), "a worker outlived the SIGTERMed run"
    assert not [n for n in os.listdir(run / "chunks") if ".tmp" in n]
    line = re.search(r"terminated \(SIGTERM\); resume with: (.*)", err).group(1)
    done = len(list((run / "chunks").glob("*.json")))
    r = subprocess.run(["bash", "-c", line.replace(".venv/bin/python", PYTHON, 1)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env=env_for(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"{done} already done" in r.stderr and summary(run)["status"] == "pass"


def test_workers_exit_when_their_parent_is_killed(tmp_path):
    """SIGKILL of the bulk process: its workers follow (before, they kept writing chunks)."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"))
    run = tmp_path / "run"
    p = _start_bulk(tmp_path, run, data)
    _wait_for_chunk(run, p)
    assert len(_procs_with(str(run))) >= 2
    p.kill()
    p.communicate()
    t0 = time.time()
    while _procs_with(str(run)) and time.time() - t0 < 10:
        time.sleep(0.2)
    assert not _procs_with(str(run))


DISK_FULL = r"""
import builtins, errno, io, os, sys
real_open = builtins.open
class Full(io.StringIO):               # a full disk fails the write (the blocks are reserved then)
    def write(self, s):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
def full_open(path, mode="r", *a, **k):
    if "chunks" in str(path) and "w" in mode:      # params.json fits; the first chunk record does not
        real_open(path, mode, *a, **k).close()
        return Full()
    return real_open(path, mode, *a, **k)
builtins.open = full_open
from harness.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_full_disk_gives_one_clear_error_and_leaves_no_temp_file(tmp_path):
    data = archives.small_archive(str(tmp_path / "DATA.BIN"), names=archives.SMALL[:1])
    run = tmp_path / "run"
    r = subprocess.run([PY, "-c", DISK_FULL, "bulk", "--out", str(run), "--jobs", "1", *QUICK, "--data", data,
                        "--check", "controllers", "--n", "100000"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env=env_for(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    # the first record written (the archive chunk or a synthetic case: whichever finishes first)
    assert re.search(r"harness: cannot write .*chunks/\d{5}\.json: No space left on device", r.stderr), r.stderr
    assert not [p for p in run.rglob("*") if ".tmp" in p.name]


def test_an_unwritable_run_directory_gives_one_clear_error(tmp_path):
    data = archives.small_archive(str(tmp_path / "DATA.BIN"), names=archives.SMALL[:1])
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = bulk(tmp_path, blocker / "run", "--data", data, "--check", "controllers", "--n", "100000")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert re.search(r"harness: cannot write .*file/run.*: Not a directory", r.stderr), r.stderr


def test_the_closing_summary_survives_machine_cpu_that_rounds_to_zero():
    """Before: ZeroDivisionError in the closing summary (and no report.html or junit.xml)."""
    from harness.runners.bulk.command import format_summary
    s = {"run_id": "r", "status": "pass", "chunks_done": 1, "chunks_total": 1, "chunks_failed": 0,
         "mismatches": 0, "errors": 0, "seconds": 0.1, "chunks_per_minute": 600, "counters": {},
         "quirks": {}, "machine_steps": 1200, "chunk_seconds": 0.01, "cpu_seconds": 0.01,
         "cpu_seconds_per_chunk": 0.01, "machine_cpu_seconds": {"ConvLCNum2ALCNum": 0.0}}
    assert "machine: 1,200 instructions" in format_summary(s)


def test_the_readme_tables_the_exit_statuses_the_harness_uses():
    from ground.exits import EXIT
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for code, word in ((0, "pass"), (1, "mismatches"), (2, "usage or input error"), (5, "nothing compared"),
                       (130, "interrupted")):
        assert re.search(rf"^\| {code} \| {word}", text, re.M), (code, word)
    assert (EXIT["pass"], EXIT["mismatches"], EXIT["bad members"], EXIT["nothing compared"],
            EXIT["interrupted"]) == (0, 1, 2, 5, 130)


def test_two_members_of_one_name_are_a_bad_member_naming_both_offsets(tmp_path):
    """The corpus keeps every member: a second member with the name of an earlier one (other
    contents, the same ANM names) is not folded into the first. It is a bad member naming both
    offsets, in the run (exit 2), its summary and `corpus stats`; before, the run said PASS."""
    (n0, d0), (n1, d1) = archives.members(archives.SMALL[:2])
    f0, f1 = (CcsfFile(d, member=n) for n, d in ((n0, d0), (n1, d1)))
    same = {obj1: f0.names[obj0].encode() for (_, _, obj0), (_, _, obj1) in zip(f0.anime_chunks, f1.anime_chunks)}
    data = archives.write_archive(str(tmp_path / "DATA.BIN"),
                                  [(n0.encode(), d0), (n0.encode(), archives.rename_objects(d1, same))])
    (_, first, *_), (_, second, *_) = archives.LAYOUT[data]
    r = bulk(tmp_path, tmp_path / "run", "--data", data, "--check", "controllers", "--n", "100000")
    assert r.returncode == 2, r.stdout + r.stderr
    (bad,) = summary(tmp_path / "run")["bad_members"]
    assert bad["member"] == n0 and bad["offset"] == second and bad["kind"] == "duplicate name"
    assert f"0x{first:X}" in bad["error"] and f"0x{second:X}" in bad["error"]
    st = subprocess.run([PY, "-m", "corpus", "stats", data], cwd=ROOT, capture_output=True,
                        text=True, timeout=300, env=env_for(tmp_path))
    assert st.returncode == 1 and "bad members: 1" in st.stdout and f"0x{second:X}" in st.stdout, st.stdout


def test_a_malformed_anime_chunk_is_bad_input_not_a_harness_error(tmp_path):
    """A sub-record that runs past its chunk: the chunk is listed with the bad members (exit 2,
    named with its offset in the chunk), not counted as a chunk the harness could not finish;
    --allow-bad-members accepts it and the other chunks pass."""
    parts = archives.members(archives.SMALL)
    name, data = parts[1]
    off, _length, _obj = CcsfFile(data, member=name).anime_chunks[0]
    broken = bytearray(data)
    struct.pack_into("<I", broken, off + 24, 0xFFFF)        # the first sub-record's word count
    parts[1] = (name, bytes(broken))
    arc = archives.write_archive(str(tmp_path / "DATA.BIN"), [(n.encode(), d) for n, d in parts])
    r = bulk(tmp_path, tmp_path / "run", "--data", arc, "--check", "controllers", "--n", "100000")
    assert r.returncode == 2, r.stdout + r.stderr
    s = summary(tmp_path / "run")
    assert s["status"] == "bad members" and s["errors"] == 0 and s["chunks_failed"] == 0
    (bad,) = s["bad_members"]
    assert bad["member"].startswith(f"{name}::") and bad["kind"] == "anime chunk" and bad["offset"] == 0x14
    assert "runs past" in bad["error"]
    assert "FAIL (bad archive members) (exit 2)" in r.stdout and "harness errors" not in r.stdout
    ok = bulk(tmp_path, tmp_path / "allowed", "--data", arc, "--check", "controllers", "--n", "100000",
              "--allow-bad-members")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    one = harness(tmp_path, "one", "--data", arc, "--case", bad["member"], "--no-shrink")
    assert one.returncode == 2 and "malformed Anime chunk" in one.stderr, one.stdout + one.stderr
