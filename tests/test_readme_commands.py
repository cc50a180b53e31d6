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

from tests.reports.htmltree import parse

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SYNTH = ROOT / "build" / "synth" / "DATA.BIN"
STANDIN = ROOT / "standin" / "standin.elf"
CASE = "xp_flag.cmp::ANM_xpflnut0"
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


def one(env):
    r = ok(env.sh(f"make one CASE={CASE} SEED=4 SHOW=20 {env.files}"))
    assert "0 mismatches" in r
    # a CHECK that does not apply to the chunk compares nothing: exit 5
    nothing = ok(env.sh(f"make one CASE={CASE} CHECK=notes SEED=4 TIME=256 SHOW=20 {env.files}"), 5)
    assert "nothing compared" in nothing


def replay(env):
    r = ok(env.sh(f".venv/bin/python -m harness replay --case {CASE} --check notes --plan 38195:0 "
                  f"--image {q(env.image)} --data {q(env.data)}"))
    assert f"{CASE} replay notes: 0 mismatches" in r


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
    assert all(m in r for m in ("eemu_ext.bench", "harness.bench", "corpus.bench")) and "exit $status" in r


def corpus_list(env):
    r = ok(env.sh(f".venv/bin/python -m corpus list {q(env.data)} --grep xpflnut"))
    assert CASE in r.split()


def corpus_stats(env):
    r = ok(env.sh(f".venv/bin/python -m corpus stats {q(env.data)} --image {q(env.image)} --json"))
    json.loads(r[r.index("{"):r.rindex("}") + 1])


def reference_show(env):
    r = ok(env.sh(f".venv/bin/python -m reference show --data {q(env.data)} --case {CASE} --time 256"))
    assert CASE in r


def disasm(env):
    r = ok(env.sh(f".venv/bin/python -m eemu_ext disasm {q(env.image)} _AnimateForward__5ccAnmFUi"))
    assert "_AnimateForward__5ccAnmFUi:" in r


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
    "make bulk N=100 [SEED=4] [PROFILE=quick|nightly] [JOBS=auto] [FLOAT=hw|trunc] [IMAGE= DATA= DISC=]":
        [everyday_bulk, disc_bulk],
    "make one CASE=xp_flag.cmp::ANM_xpflnut0 [CHECK=notes] [SEED=] [TIME=T] [SHOW=20]": [one],
    ".venv/bin/python -m harness replay --case C --check notes --plan 38195:0 …": [replay],
    "make report RUN=build/runs/<id>": [report],
    ".venv/bin/python -m harness coverage RUN [--function NAME]": [coverage],
    ". .venv/bin/activate; pytest -k notes": [developer_loop],
    "make mutants": [mutants_dry],
    "make probe [IMAGE= DATA= DISC=]": [probe, probe_disc],
    "make bench": [bench_dry],
    "make standin": [standin],
    "python -m corpus list [PATH] [--grep PATTERN]": [corpus_list],
    "python -m corpus stats PATH [--image ELF] [--json]": [corpus_stats],
    "python -m reference show --data DATA.BIN --case member::ANM_x --time T": [reference_show],
    "python -m eemu_ext disasm ELF [SYMBOL|ADDR]": [disasm],
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
