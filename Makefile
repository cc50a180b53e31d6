# eediff: emulator-backed differential tests for ccAnm.
#   make probe         the readiness probe: run it first on a new executable (IMAGE=... DATA=/DISC=...)
#   make bulk N=4091   the nightly run (stand-in + synthetic corpus by default)
#   make test          the test suite
#   make bulk CLUSTER=tcp://host:8786 | CLUSTER=local:4   the chunks on a Dask cluster
#   make bulk SHARD=2/8 OUT=dir; make merge RUNS="dir1 dir2 ..." OUT=dir   a run split over machines
# Every target bootstraps what it needs: .venv from pyproject.toml, the synthetic corpus,
# and (only for targets that rebuild the stand-in) the gcc-mipsel-linux-gnu cross compiler.

PYTHON3 ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.eediff-installed
SYNTH   := build/synth
SYNTH_DATA := $(SYNTH)/DATA.BIN

N       ?= 100
SEED    ?= 4
PROFILE ?= nightly
JOBS    ?= auto
FLOAT   ?= hw
ENGINE  ?=
ifneq ($(ENGINE),)
export EEMU_ENGINE := $(ENGINE)
endif
IMAGE   ?=
IMAGES  ?=
DATAS   ?=
DISCS   ?=
SYMS    ?=
CONFIRM ?=
VOLUME  ?=
DATA    ?=
DISC    ?=
CASE    ?=
CHECK   ?=
SHOW    ?=
TIME    ?=
RUN     ?= build/runs/latest
CLUSTER ?=
SHARD   ?=
OUT     ?=
RUNS    ?=
FORCE   ?=
FRESH   ?=
ALLOW_BAD_MEMBERS ?=
FAIL_FAST ?=
TRUTH   ?= build/truth.jsonl
MODEL   ?=
CLUSTER_STAMP := $(VENV)/.eediff-cluster
LINT_STAMP := $(VENV)/.eediff-lint
PYTEST_ARGS ?=

# Every variable reaches a recipe through the environment, unexpanded ($(value ...)), and the
# shell reads it quoted ("$$MK_..."): a value with spaces, quotes or $(...) is passed as it is,
# never parsed by make or the shell. PYTEST_ARGS and RUNS alone are lists of words, split on purpose.
export MK_N := $(value N)
export MK_N_GIVEN := $(if $(filter file,$(origin N)),,1)
export MK_SEED := $(value SEED)
export MK_PROFILE := $(value PROFILE)
export MK_JOBS := $(value JOBS)
export MK_FLOAT := $(value FLOAT)
export MK_IMAGE := $(value IMAGE)
export MK_SYMS := $(value SYMS)
export MK_CONFIRM := $(value CONFIRM)
export MK_VOLUME := $(value VOLUME)
export MK_IMAGES := $(value IMAGES)
export MK_DATAS := $(value DATAS)
export MK_DISCS := $(value DISCS)
export MK_DATA := $(value DATA)
export MK_DISC := $(value DISC)
export MK_CASE := $(value CASE)
export MK_CHECK := $(value CHECK)
export MK_SHOW := $(value SHOW)
export MK_TIME := $(value TIME)
export MK_RUN := $(value RUN)
export MK_CLUSTER := $(value CLUSTER)
export MK_SHARD := $(value SHARD)
export MK_OUT := $(value OUT)
export MK_RUNS := $(value RUNS)
export MK_FAIL_FAST := $(value FAIL_FAST)
export MK_TRUTH := $(value TRUTH)
export MK_MODEL := $(value MODEL)
unexport N SEED PROFILE JOBS FLOAT IMAGE IMAGES DATAS DISCS SYMS CONFIRM VOLUME DATA DISC CASE CHECK SHOW TIME RUN CLUSTER SHARD OUT RUNS TRUTH MODEL
unexport FORCE FRESH ALLOW_BAD_MEMBERS FAIL_FAST
# FORCE=1, FRESH=1, ALLOW_BAD_MEMBERS=1: the bulk switches of the same names (anything else: off)
BULK_SWITCHES = $(if $(filter 1,$(value FORCE)),--force) $(if $(filter 1,$(value FRESH)),--fresh) \
	$(if $(filter 1,$(value ALLOW_BAD_MEMBERS)),--allow-bad-members)
# the synthetic corpus is a prerequisite unless DATA or DISC names another archive
CORPUS_DEP = $(if $(value DATA)$(value DISC),,$(SYNTH_DATA))

HARNESS_OPTS = --seed "$$MK_SEED" --profile "$$MK_PROFILE" --float-model "$$MK_FLOAT" \
	$${MK_IMAGE:+--image "$$MK_IMAGE"} $${MK_DATA:+--data "$$MK_DATA"} $${MK_DISC:+--disc "$$MK_DISC"} \
	$${MK_SYMS:+--syms "$$MK_SYMS"} $${MK_CONFIRM:+--confirm "$$MK_CONFIRM"} \
	$${MK_VOLUME:+--volume "$$MK_VOLUME"}

.PHONY: volumes help all venv corpus test test-slow lint mutant-elfs bulk merge one probe bench standin cross mutants report clean truth check-truth fixture

all: test

# `make help`: every target and variable (tests/test_make_help.py checks none is missing).
# DECISION: CHECK='s names come from ground/vocabulary.py through the system python3 (the ground
# floor imports only the standard library), so help needs no .venv.
help:
	@echo 'targets:'
	@echo '  make bulk      check a seeded sample of N chunks; report in build/runs/latest/'
	@echo '  make one       every check (or CHECK=) on one chunk CASE=member::ANM_name'
	@echo '  make probe     readiness probe of an executable (run it first on IMAGE=/DISC=)'
	@echo '  make test      the test suite (PYTEST_ARGS= passes more pytest words)'
	@echo '  make test-slow the tests marked slow'
	@echo '  make report    re-render RUN=<run dir> (HTML and JUnit)'
	@echo '  make merge     shard runs RUNS="dir1 dir2 ..." as one run OUT=dir'
	@echo '  make truth     the game'"'"'s answers to the checks'"'"' queries over bulk'"'"'s selection, as a truth file OUT= (docs/truth.md)'
	@echo '  make fixture   the users'"'"' animation fixture OUT= (default build/anim_fixture.txt) from the game'"'"'s answers (docs/spec/fixtures.md)'
	@echo '  make check-truth  a model (MODEL=, default the built-in reference) against the truth file TRUTH='
	@echo '  make volumes   each volume (IMAGES= with DATAS=, or DISCS=) against the reference, then the volumes'"'"' answers compared (OUT=, default build/volumes)'
	@echo '  make mutants   build every stand-in mutant; each must be caught by its check'
	@echo '  make mutant-elfs  build the mutant ELFs the tests use (needs gcc-mipsel-linux-gnu)'
	@echo '  make bench     interpreter, float-model and corpus speed, nightly_realtime, objects_cost, against'
	@echo '  make lint      ruff, vulture and the import contracts (pyproject.toml), as make test runs them'
	@echo '  make standin   rebuild standin/standin.elf;  make cross  install the cross compiler'
	@echo '  make venv      .venv from pyproject.toml;  make corpus  the synthetic DATA.BIN'
	@echo '  make all       the same as make test;  make clean  remove build/ and standin/build/'
	@echo '  make help      this list'
	@echo 'variables (default):'
	@echo '  N=100          bulk: how many chunks (at least 1; the corpus size or more: all)'
	@echo '  SEED=4         seed of every random choice'
	@echo '  PROFILE=nightly  quick | nightly | first-contact'
	@echo '  JOBS=auto      bulk: worker processes (auto: one per core)'
	@echo '  FLOAT=hw       EE float model: hw | trunc'
	@echo '  ENGINE=        the machine engine: native | python | lockstep (default: native with a C compiler)'
	@echo '  IMAGE=         the executable (default: standin/standin.elf)'
	@echo '  IMAGES=        volumes: space-separated executables, one per volume (DATAS= their archives)'
	@echo '  DATAS=         volumes: space-separated DATA.BIN, one per image of IMAGES='
	@echo '  DISCS=         volumes: space-separated disc images, one per volume'
	@echo '  SYMS=          the symbol sidecar of a stripped IMAGE (default: IMAGE.syms when it exists)'
	@echo '  VOLUME=        force the volume: inf | mut | out | qua (default: detected from IMAGE, confirmed by GCMN.PRG)'
	@echo '  CONFIRM=       sidecar names (comma-separated) confirmed by hand though carried by an order, data, ... pass'
	@echo '  DATA=          the DATA.BIN (default: build/synth/DATA.BIN)'
	@echo '  DISC=          an ISO 9660 image with DATA/DATA.BIN and the executable'
	@echo '  CASE=          one: the chunk id (.venv/bin/python -m corpus list --grep NAME)'
	@echo "  CHECK=         bulk, one: only this check ($$($(PYTHON3) -c 'from ground.vocabulary import CHECK_NAMES; print(*CHECK_NAMES)'))"
	@echo '  SHOW=20        one: print at most this many mismatches'
	@echo '  TIME=          one: only the mismatches at this time (each mismatch repro gives it)'
	@echo '  RUN=build/runs/latest  report: the run directory'
	@echo '  CLUSTER=       bulk: a Dask scheduler tcp://host:8786, or local:N'
	@echo '  SHARD=         bulk: K/M, the K-th of M balanced slices'
	@echo '  RUNS=          merge: the shard run directories'
	@echo '  OUT=           bulk: exactly this run directory (default build/runs/<id>); merge: the merged one;'
	@echo '                 truth: the truth file (default build/truth.jsonl; .gz: compressed); fixture: the fixture file'
	@echo '  TRUTH=build/truth.jsonl  check-truth: the truth file'
	@echo '  MODEL=         bulk, one, check-truth: a command answering the model protocol, in place of the built-in reference'
	@echo '  FRESH=         bulk: 1 starts a new run instead of resuming an identical unfinished one'
	@echo '  FORCE=         bulk: 1 resumes OUT= even when its parameters differ from these'
	@echo '  ALLOW_BAD_MEMBERS=  bulk: 1 lists corrupt archive members without failing the run'
	@echo '  FAIL_FAST=     bulk: stop when this many chunks in a row fail alike (default 5)'
	@echo '  PYTEST_ARGS=   test, test-slow: more pytest words'
	@echo '  PYTHON3=python3  the interpreter .venv is made from'

venv: $(STAMP)
$(STAMP): pyproject.toml
	@command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq gcc >/dev/null; \
	  else echo "note: no host C compiler: the machine runs its Python engine (sudo apt-get install gcc for the native one)"; fi; }
	@echo 'making $(VENV) from pyproject.toml'
	@$(PYTHON3) -m venv $(VENV)
	@$(VENV)/bin/pip install --quiet --upgrade pip
	@PYTHONWARNINGS='ignore:Editable installation' $(VENV)/bin/pip install --quiet -e '.[test]'
	@touch $(STAMP)

# an extra's requirements (pyproject.toml, read back from the installed package's metadata), so
# adding an extra installs what it needs without building the package again
EXTRA_REQS = $(PY) -c 'import sys; from importlib.metadata import requires; \
  print(" ".join(r.split(";")[0].strip() for r in requires("eediff") if "extra == \"%s\"" % sys.argv[1] in r))'

# ruff, vulture and import-linter (the extra "lint"): make lint, and the tests (tests/test_lint.py)
$(LINT_STAMP): $(STAMP)
	@echo 'installing ruff, vulture and import-linter (the lint extra) into $(VENV)'
	@$(VENV)/bin/pip install --quiet $$($(EXTRA_REQS) lint)
	@touch $(LINT_STAMP)

# pyflakes' errors and unused arguments (ruff), dead code (vulture), the layers and no import circle
# (import-linter's contracts in pyproject.toml)
lint: $(LINT_STAMP)
	@$(VENV)/bin/ruff check --quiet . && $(VENV)/bin/vulture && $(VENV)/bin/lint-imports --no-cache

# dask distributed (the extra "cluster"), installed only where it is needed: a bulk with CLUSTER=
# and the tests (which try the cluster runner)
$(CLUSTER_STAMP): $(STAMP)
	@echo 'installing dask distributed (the cluster extra) into $(VENV)'
	@$(VENV)/bin/pip install --quiet $$($(EXTRA_REQS) cluster)
	@touch $(CLUSTER_STAMP)

# The synthetic DATA.BIN (seed 1): the bundled default corpus. Regenerated when the generator changes.
corpus: $(SYNTH_DATA)
$(SYNTH_DATA): $(STAMP) $(wildcard corpus/synth/*.py) corpus/anime.py corpus/records.py corpus/tables.py
	@echo 'making the synthetic corpus $(SYNTH_DATA)'
	@$(PY) -m corpus synth --out $(SYNTH) --seed 1

# -q once: a -q in PYTEST_ARGS on top of it (-qq) would hide the pass count.
# DECISION: the suite writes bytecode caches (__pycache__/, ignored by git) even where the
# environment sets PYTHONDONTWRITEBYTECODE: it starts many Python processes (bulks, pool workers,
# repros, make commands, the model server), and each would compile the project's sources again.
# Four subprocess-heavy test files, back to back: 102.9 -> 78.3-83.2 user-CPU-s.
# The whole suite's budget in minutes of pytest (eediff_pytest.SUITE_BUDGET_ENV says why 28).
TEST_BUDGET = 28
SUITE_ENV = PYTHONDONTWRITEBYTECODE=
test: $(STAMP) $(CLUSTER_STAMP) $(LINT_STAMP) $(SYNTH_DATA) mutant-elfs
	@$(SUITE_ENV) $(if $(PYTEST_ARGS),,EEDIFF_SUITE_BUDGET=$(TEST_BUDGET)) $(PY) -m pytest $(if $(filter -q --quiet,$(PYTEST_ARGS)),,-q) -n 2 --durations=20 $(PYTEST_ARGS)

# The mutant tests need standin/build/mutants/*.elf; they are built when the cross compiler is
# here (CI installs it). Without it those tests skip and say why.
mutant-elfs: $(STAMP) $(SYNTH_DATA)
	@if command -v mipsel-linux-gnu-gcc >/dev/null 2>&1; then \
	  $(MAKE) -s -C standin mutants PY=$(abspath $(PY)); \
	else echo "note: no gcc-mipsel-linux-gnu, so the stand-in mutant tests will skip (make cross)"; fi

test-slow: $(STAMP) $(CLUSTER_STAMP) $(SYNTH_DATA)
	@$(SUITE_ENV) $(PY) -m pytest -q -n 2 --slow -m slow $(PYTEST_ARGS)

bulk: $(STAMP) $(CORPUS_DEP) $(if $(value CLUSTER),$(CLUSTER_STAMP))
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness bulk $${MK_N_GIVEN:+--n "$$MK_N"} --jobs "$$MK_JOBS" $${MK_CHECK:+--check "$$MK_CHECK"} \
	  $(HARNESS_OPTS) \
	  $${MK_CLUSTER:+--cluster "$$MK_CLUSTER"} $${MK_SHARD:+--shard "$$MK_SHARD"} $${MK_OUT:+--out "$$MK_OUT"} \
	  $${MK_FAIL_FAST:+--fail-fast "$$MK_FAIL_FAST"} $${MK_MODEL:+--model "$$MK_MODEL"} $(BULK_SWITCHES)

# the game's answers to the checks' queries over bulk's selection (docs/truth.md); JOBS=auto by default
truth: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness truth $${MK_N_GIVEN:+--n "$$MK_N"} --jobs "$$MK_JOBS" $${MK_CHECK:+--check "$$MK_CHECK"} \
	  $(HARNESS_OPTS) --out "$${MK_OUT:-$$MK_TRUTH}"

# the users' animation fixture from the game's answers over bulk's selection (docs/spec/fixtures.md §1)
fixture: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness truth --format anim-fixture $${MK_N_GIVEN:+--n "$$MK_N"} --jobs "$$MK_JOBS" \
	  $${MK_CHECK:+--check "$$MK_CHECK"} $(HARNESS_OPTS) --out "$${MK_OUT:-build/anim_fixture.txt}"

# across volumes: IMAGES='a.elf b.elf ...' (with DATAS=, one per image) or DISCS='a.iso b.iso ...'
volumes: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness volumes $${MK_N_GIVEN:+--n "$$MK_N"} --jobs "$$MK_JOBS" \
	  $${MK_CHECK:+--check "$$MK_CHECK"} --seed "$$MK_SEED" --profile "$$MK_PROFILE" --float-model "$$MK_FLOAT" \
	  $${MK_IMAGES:+--images "$$MK_IMAGES"} $${MK_DATAS:+--datas "$$MK_DATAS"} $${MK_DISCS:+--discs "$$MK_DISCS"} \
	  --out "$${MK_OUT:-build/volumes}"

# a model against a truth file, without the emulator (MODEL= a command; default the built-in reference)
check-truth: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness check-truth "$$MK_TRUTH" $${MK_MODEL:+--model "$$MK_MODEL"} \
	  $${MK_CASE:+--case "$$MK_CASE"} $${MK_CHECK:+--check "$$MK_CHECK"} $${MK_SHOW:+--show "$$MK_SHOW"} \
	  $${MK_IMAGE:+--image "$$MK_IMAGE"} $${MK_DATA:+--data "$$MK_DATA"} $${MK_DISC:+--disc "$$MK_DISC"}

# the shard runs of one selection as one run directory, report, JUnit file and summary
merge: $(STAMP)
	@[ -n "$$MK_RUNS" ] && [ -n "$$MK_OUT" ] || { echo 'usage: make merge RUNS="dir1 dir2 ..." OUT=dir' >&2; exit 2; }
	@$(PY) -m harness merge --out "$$MK_OUT" $$MK_RUNS

one: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness one --case "$$MK_CASE" $${MK_CHECK:+--check "$$MK_CHECK"} \
	  $${MK_SHOW:+--show "$$MK_SHOW"} $${MK_TIME:+--time "$$MK_TIME"} $${MK_MODEL:+--model "$$MK_MODEL"} $(HARNESS_OPTS)

probe: $(STAMP) $(CORPUS_DEP)
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness probe $(HARNESS_OPTS)

bench: $(STAMP) $(SYNTH_DATA)
	@status=0; for bench in benchmarks.machine benchmarks.bulk benchmarks.archive benchmarks.realtime benchmarks.objects_cost benchmarks.against; do \
	  $(PY) -m $$bench || status=1; done; \
	  [ $$status = 0 ] || echo 'make bench: a goal was NOT met (above)' >&2; exit $$status

report: $(STAMP)
	@$(PY) -m reports render "$$MK_RUN"

cross:
	@command -v mipsel-linux-gnu-gcc >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq gcc-mipsel-linux-gnu binutils-mipsel-linux-gnu; \
	  else echo "need gcc-mipsel-linux-gnu: sudo apt-get install gcc-mipsel-linux-gnu" >&2; exit 1; fi; }

standin: cross $(STAMP) $(SYNTH_DATA)
	@$(MAKE) -s -C standin all volumes PY=$(abspath $(PY))

mutants: cross $(STAMP) $(SYNTH_DATA)
	@$(MAKE) -s -C standin mutants PY=$(abspath $(PY))
	@EEDIFF_VIA_MAKE=1 $(PY) -m harness mutants $(HARNESS_OPTS)

clean:
	@rm -rf build standin/build
