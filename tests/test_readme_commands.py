"""Every command README.md prints works as printed: each line of its command blocks and each
command of its command tables, run in its user-facing form (make target, module CLI, pytest)
on the synthetic corpus, with the executable and DATA.BIN copied to a directory outside the
checkout (with a space in its path). Placeholders become concrete values and N becomes small;
a disc is an ISO 9660 image of the two files; a cluster is a scheduler and workers started
here on a free port.

The commands are read from README.md itself: a command with no concrete form below fails
test_every_readme_command_has_a_concrete_form, and so does a form whose command left the
README. Runs in `make test` (CI); `make bench` (3.5 min) and `make mutants` (1 min) run in full
with --slow, and as a dry run (`make -n`) otherwise.
"""
from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.harness.native_programs import compiled
from tests.reports.htmltree import parse

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SYNTH = ROOT / "build" / "synth" / "DATA.BIN"
STANDIN = ROOT / "standin" / "standin.elf"
CASE = "xp_flag.cmp::ANM_xp_flag004"          # the README's example: a chunk with notes
NO_NOTES = "xp_flag.cmp::ANM_xpflnut0"         # a chunk the note check does not apply to
CLUSTER_WORKERS = 2


# ---- the commands README.md prints ---------------------------------------------------------

def readme_commands(text: str) -> list[str]:
    """Each line of the fenced sh blocks and the indented code blocks (comments dropped), and the
    first cell of every table whose first heading is "command", in README order."""
    out, lines = [], text.splitlines()
    fenced, prev_blank = None, True
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = None if fenced is not None else line[3:].strip()
            prev_blank = False
            continue
        if fenced is not None:
            if fenced in ("sh", "bash", "") and line.strip():
                out.append(re.sub(r"\s+#\s.*$", "", line).strip())
            continue
        if line.startswith("    ") and line.strip() and (prev_blank or lines[i - 1].startswith("    ")):
            out.append(re.sub(r"\s+#\s.*$", "", line).strip())
            continue
        prev_blank = not line.strip()
    heading = None
    for line in lines:
        if not line.startswith("|"):
            heading = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if heading is None:
            heading = cells[0]
        elif heading == "command" and not set(cells[0]) <= set("- "):
            m = re.fullmatch(r"`(.+)`", cells[0])
            assert m, f"README.md command table: {cells[0]!r} is not one `command`"
            out.append(m.group(1).replace("\\|", "|"))
    return out


def q(x) -> str:
    return shlex.quote(str(x))


# ---- where the commands run ----------------------------------------------------------------

class Env:
    """The copied inputs, the run directories and the results of commands more than one README
    line relies on (computed once)."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        inputs = tmp / "in put"                      # a space: every make variable is quoted
        inputs.mkdir()
        self.image = inputs / "SLUS_202.67"
        self.data = inputs / "DATA.BIN"
        shutil.copyfile(STANDIN, self.image)
        shutil.copyfile(SYNTH, self.data)
        self.runs = tmp / "runs"
        self.runs.mkdir()
        self.cache: dict = {}

    def sh(self, cmd: str, timeout=300, env=None) -> subprocess.CompletedProcess:
        """cmd in bash at the checkout, as a user types it."""
        full = dict(os.environ, **(env or {}))
        full.pop("PYTEST_XDIST_WORKER", None)
        full.pop("PYTEST_ADDOPTS", None)
        return subprocess.run(["bash", "-c", cmd], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=full)

    def once(self, key, make):
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    @property
    def files(self) -> str:
        return f"IMAGE={q(self.image)} DATA={q(self.data)}"

    def iso(self) -> Path:
        def build():
            import pycdlib
            path = self.tmp / "in put" / "infection.iso"
            iso = pycdlib.PyCdlib()
            iso.new(interchange_level=1)
            elf = self.image.read_bytes()
            iso.add_fp(io.BytesIO(elf), len(elf), "/SLUS_202.67;1")
            iso.add_directory("/DATA")
            with open(self.data, "rb") as data:
                iso.add_fp(data, self.data.stat().st_size, "/DATA/DATA.BIN;1")
                iso.write(str(path))
            iso.close()
            return path
        return self.once("iso", build)

    def bulk(self, name: str, words: str) -> tuple[subprocess.CompletedProcess, Path]:
        """`make bulk <words> OUT=<runs>/<name>`, once per name."""
        out = self.runs / name
        return self.once(("bulk", name), lambda: (self.sh(f"make bulk {words} OUT={q(out)}"), out))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    assert SYNTH.is_file(), f"{SYNTH}: the synthetic corpus (make corpus) is missing"
    # the commands run the stand-in (copied: the same program) under both float models; built
    # once here, each make command runs it compiled from its first instruction (native_programs)
    compiled(str(STANDIN), "hw")
    compiled(str(STANDIN), "trunc")
    return Env(tmp_path_factory.mktemp("readme"))


def ok(r, status=0):
    text = (r.stdout + r.stderr)[-3000:]
    if status == 0:
        assert r.returncode == 0, text
    else:                                   # make reports a recipe's status s as its own 2
        assert r.returncode == 2 and f"Error {status}" in r.stderr, text
    assert "Traceback" not in r.stderr, text
    return r.stdout + r.stderr


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


# ---- the concrete form of each README command ----------------------------------------------

def nightly(env):
    """make bulk N=4091 (the nightly profile) on two chunks: a passing run with its report, whose
    Run table's make line re-runs it (resuming the finished run: nothing left to check)."""
    r, run = env.bulk("nightly", f"N=2 {env.files}")
    ok(r)
    s = summary(run)
    assert s["status"] == "pass" and s["chunks_done"] >= 2 and s["params"]["profile"] == "nightly"
    assert {"report.html", "junit.xml", "summary.json"} <= {p.name for p in run.iterdir()}
    row = next(tr for tr in parse((run / "report.html").read_text()).by_id("run").find_all("tr")
               if tr.find("th") and tr.find("th").text() == "command")
    line = row.find("code").text()
    assert line.startswith("make bulk N=2 SEED=4 PROFILE=nightly FLOAT=hw ") and "__main__" not in line
    again = ok(env.sh(line))
    assert "nothing left" in again or summary(run)["chunks_done"] == s["chunks_done"], again[-2000:]


def bulk_switches(env):
    """FRESH=1 starts a new run where the same command would resume; FAIL_FAST= reaches the bulk;
    a re-run of a finished OUT= says it resumes; FORCE=1 resumes OUT= under other parameters."""
    r, run = env.bulk("quick", f"N=2 SEED=4 PROFILE=quick JOBS=auto FLOAT=trunc {env.files}")
    ok(r)
    again = ok(env.sh(f"make bulk N=2 SEED=4 PROFILE=quick JOBS=auto FLOAT=trunc {env.files} OUT={q(run)}"))
    assert "resuming this run: " in again and "0 to check" in again, again[-2000:]
    other = env.sh(f"make bulk N=2 SEED=5 PROFILE=quick FLOAT=trunc {env.files} OUT={q(run)}")
    ok(other, 2)
    assert "was run with other parameters" in other.stderr and "seed: run 4, now 5" in other.stderr
    forced = ok(env.sh(f"make bulk N=2 SEED=5 PROFILE=quick FLOAT=trunc FORCE=1 FAIL_FAST=3 {env.files} OUT={q(run)}"))
    assert "--force: resuming" in forced
    fresh = ok(env.sh("make -n bulk FRESH=1 FAIL_FAST=3 ALLOW_BAD_MEMBERS=1"))
    assert "--fresh" in fresh and '--fail-fast "$MK_FAIL_FAST"' in fresh and "--allow-bad-members" in fresh
    assert "--force" not in ok(env.sh("make -n bulk FORCE=0"))


def everyday_bulk(env):
    r, run = env.bulk("quick", f"N=2 SEED=4 PROFILE=quick JOBS=auto FLOAT=trunc {env.files}")
    ok(r)
    s = summary(run)
    assert (s["status"], s["params"]["profile"], s["params"]["float_model"]) == ("pass", "quick", "trunc")


def make_test(env):
    r = ok(env.sh("make test PYTEST_ARGS=tests/test_make_help.py"))
    assert re.search(r"\b\d+ passed\b", r), r[-2000:]


def make_help(env):
    r = ok(env.sh("make help"))
    assert "make bulk" in r and "N=100" in r


def probe(env):
    r = ok(env.sh(f"make probe {env.files}"))
    assert "READY" in r and "NOT READY" not in r


def probe_disc(env):
    r = ok(env.sh(f"make probe DISC={q(env.iso())}"))
    assert "READY" in r and "NOT READY" not in r


def first_contact(env):
    r, run = env.bulk("first-contact", f"PROFILE=first-contact {env.files}")
    ok(r)
    s = summary(run)
    assert s["status"] == "pass" and s["params"]["float_model"] == "trunc"


def disc_bulk(env):
    r, run = env.bulk("disc", f"N=2 DISC={q(env.iso())}")
    ok(r)
    assert summary(run)["status"] == "pass"


def pytest_options(env):
    r = ok(env.sh(f".venv/bin/pytest --image {q(env.image)} --data {q(env.data)} -k notes "
                  "--chunks 1 -q -n 0 -p no:cacheprovider tests/differential"))
    assert re.search(r"\b[1-9]\d* passed\b", r) and "failed" not in r, r[-2000:]


def pytest_environment(env):
    r = ok(env.sh("pytest -k notes --chunks 1 -q -n 0 -p no:cacheprovider tests/differential",
                  env={"EEDIFF_IMAGE": str(env.image), "EEDIFF_DATA": str(env.data),
                       "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}))
    assert re.search(r"\b[1-9]\d* passed\b", r) and "failed" not in r, r[-2000:]


def developer_loop(env):
    r = ok(env.sh(". .venv/bin/activate; pytest -k notes --chunks 1 -q -n 0 -p no:cacheprovider "
                  "tests/differential",
                  env={"EEDIFF_IMAGE": str(env.image), "EEDIFF_DATA": str(env.data)}))
    assert re.search(r"\b[1-9]\d* passed\b", r) and "failed" not in r, r[-2000:]


def compared(text, *counters):
    """The counters a `one`/`replay` line printed: each named one must be above 0."""
    got = json.loads(re.search(r"counters (\{.*?\})", text)[1])
    assert all(got.get(c, 0) > 0 for c in counters), (counters, got)
    return got


def one(env):
    r = ok(env.sh(f"make one CASE={CASE} SEED=4 SHOW=20 {env.files}"))
    assert "0 mismatches" in r and "checks controllers" in r
    compared(r, "cases", "note steps")
    notes = ok(env.sh(f"make one CASE={CASE} CHECK=notes SEED=4 SHOW=20 {env.files}"))
    assert "checks notes;" in notes and "0 mismatches" in notes
    compared(notes, "note steps", "notes delivered")
    # a CHECK that does not apply to the chunk compares nothing: exit 5
    nothing = ok(env.sh(f"make one CASE={NO_NOTES} CHECK=notes SEED=4 TIME=256 SHOW=20 {env.files}"), 5)
    assert "nothing compared" in nothing


def replay(env):
    r = ok(env.sh(f".venv/bin/python -m harness replay --case {CASE} --check notes --plan 38195:0 "
                  f"--image {q(env.image)} --data {q(env.data)}"))
    assert f"{CASE} replay notes: 0 mismatches" in r
    compared(r, "note steps")


def report(env):
    _, run = env.bulk("nightly", f"N=2 {env.files}")
    (run / "report.html").unlink()
    r = ok(env.sh(f"make report RUN={q(run)}"))
    assert (run / "report.html").is_file() and str(run / "report.html") in r
    bad = env.sh(f"make report RUN={q(env.tmp / 'in put')}")
    assert bad.returncode == 2 and "not a run directory" in bad.stderr


def coverage(env):
    """The run's per-function figures and totals; one function's annotated disassembly; a directory
    that is not a run is refused, named."""
    _, run = env.bulk("nightly", f"N=2 {env.files}")
    r = ok(env.sh(f".venv/bin/python -m harness coverage {q(run)}"))
    m = re.search(r"total: instructions (\d+)/(\d+) \([\d.]+%\), branch directions (\d+)/(\d+) \([\d.]+%\)", r)
    assert m and 0 < int(m[1]) < int(m[2]) and 0 < int(m[3]) < int(m[4]), r[-2000:]
    rows = re.findall(r"^(\S+) +(\d+/\d+ +[\d.]+%|served by the harness.*?) +\S", r, re.M)
    names = [n for n, _ in rows]
    assert names == sorted(names, key=str.lower) and "ccAnm::NoteProcess" in names, r[-2000:]
    assert dict(rows)["ccMalloc"].startswith("served by the harness"), r[-2000:]
    assert "served by the harness, not counted" in r
    short = ok(env.sh(f".venv/bin/python -m harness coverage {q(run)} --function ccMalloc"))
    assert "ccMalloc__FUi" in short
    one = ok(env.sh(f".venv/bin/python -m harness coverage {q(run)} --function NoteProcess"))
    assert re.search(r"^(  |!!) [0-9a-f]{8} +\d+ \S", one, re.M) and "[taken " in one, one[-2000:]
    assert "code_coverage.html" in (run / "report.html").read_text() and (run / "code_coverage.html").is_file()
    bad = env.sh(f".venv/bin/python -m harness coverage {q(env.tmp / 'in put')}")
    assert bad.returncode == 2 and "no coverage.json" in bad.stderr, bad.stderr


def mutants_dry(env):
    r = ok(env.sh("make -n mutants"))
    assert "-m harness mutants" in r


def standin(env):
    out = env.tmp / "standin-build"
    ok(env.sh(f"make standin OUT={q(out / 'standin.elf')} BUILD={q(out)}"))
    assert (out / "standin.elf").read_bytes() == STANDIN.read_bytes(), \
        "standin/standin.elf is not what its sources build"


def bench_dry(env):
    r = ok(env.sh("make -n bench"))
    assert all(m in r for m in ("benchmarks.machine", "benchmarks.bulk", "benchmarks.archive")) and "exit $status" in r


def lint(env):
    ok(env.sh("make lint"))        # every tool passes: ruff, vulture, the import contracts


def corpus_list(env):
    r = ok(env.sh(f".venv/bin/python -m corpus list {q(env.data)} --grep xp_flag"))
    assert CASE in r.split() and NO_NOTES in r.split()
    notes = ok(env.sh(f".venv/bin/python -m corpus list {q(env.data)} --grep xp_flag --check notes"))
    assert CASE in notes.split() and NO_NOTES not in notes.split()


def corpus_stats(env):
    r = ok(env.sh(f".venv/bin/python -m corpus stats {q(env.data)} --image {q(env.image)} --json"))
    json.loads(r[r.index("{"):r.rindex("}") + 1])


def reference_show(env):
    r = ok(env.sh(f".venv/bin/python -m reference show --case {CASE} --time 256"))       # the bundled corpus
    assert CASE in r and "tracks (" in r
    other = ok(env.sh(f".venv/bin/python -m reference show --case {CASE} --time 256 --data {q(env.data)}"))
    assert CASE in other


def disasm(env):
    r = ok(env.sh(f".venv/bin/python -m eemu_ext disasm {q(env.image)} _AnimateForward__5ccAnmFUi"))
    assert "_AnimateForward__5ccAnmFUi:" in r
    index = ok(env.sh(f".venv/bin/python -m eemu_ext disasm {q(env.image)}"))
    funcs = re.findall(r"^  ([0-9a-f]{8}) +(\d+) insns  (\S+)$", index, re.M)
    assert len(funcs) > 20 and "NoteProcess__5ccAnmFv" in {n for _, _, n in funcs}, index[-2000:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster(env):
    """dask scheduler, dask worker and make bulk CLUSTER=tcp://host:8786, on this machine."""
    def run():
        port = free_port()
        address = f"tcp://127.0.0.1:{port}"
        dask = ROOT / ".venv" / "bin" / "dask"
        logs = env.tmp / "dask.log"
        started = []
        try:
            with open(logs, "w") as log:
                started.append(subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1",
                                                 "--port", str(port), "--no-dashboard"],
                                                stdout=log, stderr=log, cwd=env.tmp))
                started.append(subprocess.Popen([str(dask), "worker", address, "--nthreads", "1",
                                                 "--nworkers", str(CLUSTER_WORKERS), "--no-dashboard"],
                                                stdout=log, stderr=log, cwd=env.tmp))
                r, run = env.bulk("cluster", f"N=2 CLUSTER={address} {env.files}")
        finally:
            for p in started:
                p.terminate()
            for p in started:
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
        return r, run, logs.read_text()
    r, run, log = env.once("cluster", run)
    ok(r)
    assert summary(run)["status"] == "pass", log[-2000:]


def shards(env):
    for k in (1, 2):
        r, run = env.bulk(f"shard-{k}", f"N=2 SEED=4 SHARD={k}/2 {env.files}")
        ok(r)
        assert summary(run)["params"]["shard"]["k"] == k


def merge(env):
    shards(env)
    out = env.runs / "nightly-merged"
    r = env.once("merge", lambda: env.sh(f'make merge RUNS="{env.runs / "shard-1"} {env.runs / "shard-2"}" '
                                         f"OUT={q(out)}"))
    ok(r)
    assert summary(out)["status"] == "pass" and (out / "report.html").is_file()


def slow_mutants(env):
    r = ok(env.sh("make mutants", timeout=900))
    assert re.search(r"(\d+)/\1 mutants caught", r), r[-2000:]


def slow_bench(env):
    ok(env.sh("make bench", timeout=1200))


# README command -> its concrete forms; the second list runs only with --slow.
def truth(env):
    """A truth file of two chunks, then the built-in reference against it (0 mismatches)."""
    out = env.once("truth", lambda: (ok(env.sh(f"make truth N=2 {env.files} OUT={q(env.tmp / 'the truth.jsonl')}")),
                                     env.tmp / "the truth.jsonl")[1])
    assert out.is_file() and json.loads(out.read_text().splitlines()[0])["format"] == "eediff-truth"
    return out


def fixture(env):
    """The users' fixture of two chunks: written, its comment lines first (too few lines for the
    users' minimum counts, which is exit 1 and says so)."""
    out = env.tmp / "anim fixture.txt"
    r = ok(env.sh(f"make fixture N=2 {env.files} OUT={q(out)}"), status=1)
    assert "below the reader's minimum counts" in r, r
    assert out.is_file() and out.read_text().startswith("# anim_fixture written by eediff from the game's answers")


def check_truth(env):
    out = truth(env)
    r = ok(env.sh(f"make check-truth TRUTH={q(out)} {env.files}"))
    assert "PASS (exit 0)" in r and "0 mismatches" in r
    serve = ok(env.sh(f"make check-truth TRUTH={q(out)} {env.files} MODEL={q('.venv/bin/python -m reference serve')}"))
    assert "PASS (exit 0)" in serve and "model .venv/bin/python -m reference serve" in serve


def model_bulk(env):
    """make bulk N=4091 MODEL=... on two chunks: the built-in reference over the protocol passes,
    the closing block names the model, and the run's re-run line carries MODEL=."""
    model = ".venv/bin/python -m reference serve"
    r, run = env.bulk("model", f"N=2 {env.files} MODEL={q(model)}")
    text = ok(r)
    s = summary(run)
    assert s["status"] == "pass" and s["model"] == model and s["ledger"], text[-2000:]
    assert f"model: {model} in place of the built-in reference" in text
    assert "MODEL=" in s["params"]["rerun"] and model in s["params"]["rerun"]


FORMS = {
    "make bulk N=4091": [nightly],
    "make test": [make_test],
    "make help": [make_help],
    "make probe IMAGE=/path/SLUS_202.67 DATA=/path/DATA.BIN": [probe],
    "make bulk PROFILE=first-contact IMAGE=/path/SLUS_202.67 DATA=/path/DATA.BIN": [first_contact],
    "make bulk N=4091 IMAGE=/path/SLUS_202.67 DATA=/path/DATA.BIN": [nightly],
    "make bulk N=4091 DISC=/path/infection.iso": [disc_bulk],
    "pytest --image /path/SLUS_202.67 --data /path/DATA.BIN -k notes": [pytest_options],
    "EEDIFF_IMAGE=/path/SLUS_202.67 EEDIFF_DATA=/path/DATA.BIN pytest -k notes": [pytest_environment],
    "make bulk N=100 [SEED=4] [PROFILE=quick|nightly] [JOBS=auto] [FLOAT=hw|trunc] [IMAGE= DATA= DISC=] "
    "[FRESH=1] [FORCE=1] [ALLOW_BAD_MEMBERS=1] [FAIL_FAST=5]": [everyday_bulk, disc_bulk, bulk_switches],
    "make one CASE=xp_flag.cmp::ANM_xp_flag004 [CHECK=notes] [SEED=] [TIME=T] [SHOW=20]": [one],
    ".venv/bin/python -m harness replay --case C --check notes --plan 38195:0 …": [replay],
    "make report RUN=build/runs/<id>": [report],
    "make truth N=200 OUT=build/truth.jsonl": [truth],
    "make fixture N=4091 OUT=anim_fixture.txt": [fixture],
    "make check-truth TRUTH=build/truth.jsonl [MODEL='CMD ARGS']": [check_truth],
    "make bulk N=4091 MODEL='CMD ARGS'": [model_bulk],
    ".venv/bin/python -m harness coverage RUN [--function NAME]": [coverage],
    ". .venv/bin/activate; pytest -k notes": [developer_loop],
    "make mutants": [mutants_dry],
    "make probe [IMAGE= DATA= DISC=]": [probe, probe_disc],
    "make bench": [bench_dry],
    "make lint": [lint],
    "make standin": [standin],
    ".venv/bin/python -m corpus list [PATH] [--grep PATTERN] [--check notes]": [corpus_list],
    ".venv/bin/python -m corpus stats PATH [--image ELF] [--json]": [corpus_stats],
    ".venv/bin/python -m reference show --case member::ANM_x --time T [--data DATA.BIN]": [reference_show],
    ".venv/bin/python -m eemu_ext disasm ELF [SYMBOL|ADDR]": [disasm],
    "dask scheduler": [cluster],
    "dask worker tcp://host:8786 --nthreads 1 --nworkers 4": [cluster],
    "make bulk N=4091 CLUSTER=tcp://host:8786": [cluster],
    "make bulk N=4091 SEED=4 SHARD=1/4 OUT=build/runs/shard-1": [shards],
    'make merge RUNS="build/runs/shard-1 build/runs/shard-2 build/runs/shard-3 build/runs/shard-4" '
    "OUT=build/runs/nightly": [merge],
}
SLOW_FORMS = {"make mutants": [slow_mutants], "make bench": [slow_bench]}

COMMANDS = readme_commands(README.read_text(encoding="utf-8"))
# The check markers: a test id must not carry one, or `pytest -k notes` (the developer loop) would
# run the README's commands too.
MARKERS = ("controllers", "materials", "playback", "notes", "morph", "fobj")


def command_id(command):
    """'07-make-one' for README command 7: its first words, never a check marker's name."""
    i = COMMANDS.index(command) if command in COMMANDS else len(COMMANDS)
    words = [w for w in re.findall(r"[A-Za-z]+", command) if w.lower() not in MARKERS][:2]
    return f"{i + 1:02d}-" + "-".join(words)


def test_the_readme_parser_finds_blocks_and_tables():
    text = ("```sh\nmake a   # comment\n```\n\n    dask x\n    make y Z=1\n\nprose\n   make list-item\n\n"
            "| command | what |\n| --- | --- |\n| `make b [F=hw\\|trunc]` | b |\n\n| status | meaning |\n"
            "| --- | --- |\n| 0 | pass |\n")
    assert readme_commands(text) == ["make a", "dask x", "make y Z=1", "make b [F=hw|trunc]"]


def test_every_readme_command_has_a_concrete_form():
    missing = [c for c in COMMANDS if c not in FORMS]
    assert not missing, f"README.md commands with no concrete form in {Path(__file__).name}: {missing}"
    stale = [c for c in FORMS if c not in COMMANDS]
    assert not stale, f"forms of commands no longer in README.md: {stale}"
    assert set(SLOW_FORMS) <= set(FORMS)


@pytest.mark.parametrize("command", COMMANDS, ids=command_id)
def test_readme_command_works(env, command):
    assert command in FORMS, f"README.md command {command!r} has no concrete form"
    for form in FORMS[command]:
        form(env)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(SLOW_FORMS), ids=command_id)
def test_readme_command_works_in_full(env, command):
    for form in SLOW_FORMS[command]:
        form(env)


# ---- the figures README.md states, against the corpus and a nightly run ----------------------

NIGHTLY_PARAGRAPH = "On the bundled stand-in and synthetic corpus, `make bulk N=4091`"
FIGURE = re.compile(r"([\d][\d.,]*)(?: ([GM]))? (chunks of the archive|synthetic cases|emulated instructions|"
                    r"controller cases|object matrices|playback steps|note steps|morph states|note chunks)")
UNITS = {None: 1, "M": 1e6, "G": 1e9}


def readme_figures(text=None):
    """{what: (the README's words, value, unit)} from the nightly paragraph and the developer-loop
    row (whitespace joined across line breaks)."""
    text = text or README.read_text(encoding="utf-8")
    start = text.index(NIGHTLY_PARAGRAPH)
    para = " ".join(text[start:text.index("\n\n", start)].split())
    loop = next(line for line in text.splitlines() if line.startswith("| `. .venv/bin/activate; pytest -k notes`"))
    out = {}
    for number, unit, what in FIGURE.findall(para + " " + loop):
        out.setdefault(what, (f"{number}{' ' + unit if unit else ''} {what}", number, unit or None))
    return out


def figure_holds(number, unit, actual):
    """The README's figure is `actual` as the README rounds it (its decimals, its unit)."""
    if unit is None and "." not in number:
        return int(number.replace(",", "")) == actual
    decimals = len(number.split(".", 1)[1]) if "." in number else 0
    return round(actual / UNITS[unit], decimals) == float(number.replace(",", ""))


def stale(figures, actual):
    return [f"README says {words!r}; the run has {actual[what]:,}" for what, (words, number, unit) in figures.items()
            if what in actual and not figure_holds(number, unit, actual[what])]


def test_the_figure_check_reads_the_readme_and_catches_a_stale_figure():
    figures = readme_figures()
    assert {"chunks of the archive", "synthetic cases", "emulated instructions", "controller cases",
            "object matrices", "playback steps", "note steps", "morph states", "note chunks"} <= set(figures)
    assert figure_holds("32.6", "G", 32_612_345_678) and not figure_holds("32.6", "G", 32_665_864_200 + 10**8)
    assert figure_holds("921,909", None, 921_909) and not figure_holds("921,909", None, 1_034_540)
    assert stale({"note steps": ("106,549 note steps", "106,549", None)}, {"note steps": 106_550})


def test_the_readme_chunk_counts_are_the_bundled_corpus():
    """4,091 chunks of the archive, the synthetic cases a bulk adds, the note chunks of the loop."""
    from harness.options import Options
    from harness.runners.bulk import command as bulk, selection
    corpus = Options().open_corpus()
    synthetic = bulk.synthetic_ids()
    actual = {"chunks of the archive": len(selection.pool(corpus)), "synthetic cases": len(synthetic),
              "note chunks": len(selection.pool(corpus, selection.kinds_for(["notes"])))}
    assert not stale(readme_figures(), actual), stale(readme_figures(), actual)


def nightly_figures(summary):
    c = summary.get("counters") or {}
    controllers = (summary.get("counters_by_check") or {}).get("controllers") or {}
    return {"chunks of the archive": summary["archive_chunks"]["total"],
            "synthetic cases": summary["synthetic_chunks"]["total"],
            "emulated instructions": summary["machine_steps"], "controller cases": controllers.get("cases", c.get("cases")),
            "object matrices": c.get("object matrices"), "playback steps": c.get("steps"),
            "note steps": c.get("note steps"), "morph states": c.get("morph states")}


def nightly_run():
    """A complete `make bulk N=4091` of this code on the bundled files (build/runs/readme-<code>),
    run when there is none yet."""
    from harness.options import DEFAULT_DATA, DEFAULT_IMAGE
    from harness.runners.bulk.run import code_version, file_identity
    out = ROOT / "build" / "runs" / f"readme-{code_version()}"
    if (out / "summary.json").is_file() and summary(out).get("complete"):
        return summary(out)
    r = subprocess.run(["make", "bulk", "N=4091", f"OUT={out}"], cwd=ROOT, capture_output=True, text=True,
                       timeout=7200)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    s = summary(out)
    p = s["params"]
    assert (p["image"]["sha256"], p["data"]["sha256"]) == (file_identity(DEFAULT_IMAGE)["sha256"],
                                                          file_identity(DEFAULT_DATA)["sha256"])
    return s


@pytest.mark.slow
def test_the_readme_figures_are_a_nightly_run():
    """Every count the README gives for the nightly (chunks, cases, instructions, matrices, steps,
    states) is what `make bulk N=4091` of this code prints, to the README's rounding."""
    s = nightly_run()
    assert s["status"] == "pass" and s["params"]["profile"] == "nightly"
    assert not stale(readme_figures(), nightly_figures(s)), stale(readme_figures(), nightly_figures(s))
