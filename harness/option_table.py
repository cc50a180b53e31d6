"""The option table: every run option said once, one row each, and everything generated from it.

A row names an option (its flag, or a positional's name), its type (harness/values.py), default,
choices and help, the entry points that take it (the `python -m harness` subcommands and pytest,
"pytest"), the make variable that feeds it (and the make targets whose recipe passes it on), the
environment variable that stands for it when it is not given, and whether a case's repro names it.
Where an entry point differs (truth's --jobs defaults to 1, pytest's --image to the stand-in's
path, make's PROFILE to nightly), the row says so in `per`, keyed by the entry point.

Generated from the rows: each subcommand's argparse arguments (`add_arguments`), the pytest
plugin's options (`pytest_options`), the option -> make variable table that make's error messages
and the printed make commands use (MAKE_VARIABLES), the options a case's repro names and in what
order (`case_pairs` in harness/commands.py), the options a run's rerun and resume lines name
(`bulk_pairs` there: every row of bulk but those that say why not), the Options dataclass's
defaults (entry point "python") and the default of each entry point (`default`, DEFAULT_PROFILE).
The Makefile states
its variables itself (make has no Python at parse time); tests/harness/test_option_table.py holds
it to the rows: each make variable declared with the row's make default, listed by `make help`,
and passed on by every make target the row names.

DECISION: this module imports nothing of the harness but the value types and the profiles (both
leaves): harness.commands builds every repro from it, and compare.mismatch builds repros.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from harness.profiles import PROFILES
from harness.values import chunk_count, frame_speed, job_count, listed, note_step, seconds, u32_number, whole_number

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_IMAGE = os.path.join(ROOT, "standin", "standin.elf")
DEFAULT_DATA = os.path.join(ROOT, "build", "synth", "DATA.BIN")

# The entry points besides the harness's subcommands: the make targets (their variables' defaults),
# the pytest plugin, and the Options dataclass of the Python API.
MAKE, PYTEST, PYTHON = "make", "pytest", "python"

# the subcommands that drive the game (the options of `common` in harness/__main__.py)
RUN = ("bulk", "one", "replay", "mutants", "probe", "truth", "volumes")
SUBCOMMANDS = ("bulk", "merge", "one", "replay", "mutants", "coverage", "probe", "truth", "volumes",
               "check-truth", "options")
# make targets -> the harness subcommand their recipe runs
MAKE_TARGETS = {"bulk": "bulk", "one": "one", "probe": "probe", "truth": "truth", "fixture": "truth",
                "mutants": "mutants", "volumes": "volumes", "check-truth": "check-truth", "merge": "merge"}
HARNESS_OPTS = ("bulk", "one", "probe", "truth", "fixture", "mutants")    # the targets of $(HARNESS_OPTS)

# choices the caller resolves when it builds a parser (the check registry is above this module)
CHECK_NAMES, REPLAYABLE = "check names", "replayable checks"
BOOL = "--x/--no-x"              # an action: argparse.BooleanOptionalAction
ALWAYS, SET = "always", "when set"   # a repro names the option always / when it differs from its default

REFERENCE_MODEL = "a program answering docs/truth.md's protocol, in place of the built-in reference"


@dataclass(frozen=True)
class Option:
    flag: str                           # "--seed"; a positional's name ("file")
    help: Optional[str] = None
    type: Optional[Callable] = None     # an argparse type (harness/values.py)
    default: Any = None
    takes: tuple = ()                   # the entry points that take it (subcommands, "pytest")
    choices: Any = None                 # a tuple, or CHECK_NAMES / REPLAYABLE
    action: Optional[str] = None        # "store_true", "append" or BOOL
    make: Optional[str] = None          # the make variable that feeds it
    make_targets: tuple = ()            # the make targets whose recipe passes that variable on
    env: Optional[str] = None           # the environment variable standing for it when not given
    repro: Optional[str] = None         # ALWAYS or SET: a case's repro (`one`, `replay`) names it
    not_repro: Optional[str] = None     # why a repro leaves out an option `one` takes
    not_rerun: Optional[str] = None     # why a run's rerun and resume commands leave out an option of bulk
    attr: Optional[str] = None          # the Options / CaseContext attribute (default: from the flag)
    extra: dict = field(default_factory=dict)   # more argparse keywords: metavar, nargs, const, required, dest
    per: dict = field(default_factory=dict)     # entry point -> the fields that differ there

    @property
    def positional(self):
        return not self.flag.startswith("-")

    @property
    def name(self):
        """The Options / CaseContext attribute the option becomes."""
        return self.attr or self.extra.get("dest") or self.flag.lstrip("-").replace("-", "_")

    def at(self, entry):
        """The row as `entry` sees it (its `per` overrides applied)."""
        over = dict(self.per.get(entry, {}))
        if "extra" in over:
            over["extra"] = {**self.extra, **over["extra"]}
        return dataclasses.replace(self, per={}, **over) if over else self

    def argparse_keywords(self, named):
        kw = dict(self.extra)
        if self.action == BOOL:
            kw["action"] = argparse.BooleanOptionalAction
        elif self.action:
            kw["action"] = self.action
        choices = named[self.choices] if isinstance(self.choices, str) else self.choices
        for key, value in (("type", self.type), ("default", self.default), ("choices", choices),
                           ("help", self.help)):
            if value is not None:
                kw[key] = value
        return kw


O = Option
ROWS = (
    # -- the case: a repro names these, in this order --------------------------------------------
    # DECISION: one help per option: the subcommands' --seed, --profile and --float-model show the
    # help pytest's options had (theirs had none).
    O("--case", takes=("one", "replay", "check-truth"), make="CASE", make_targets=("one", "check-truth"),
      repro=ALWAYS, attr="chunk", extra=dict(required=True),
      per={"check-truth": dict(help="only this chunk id", extra=dict(required=False))}),
    O("--seed", "seed for every random choice (with the chunk identity)", whole_number(), 4, RUN + (PYTEST,),
      make="SEED", make_targets=HARNESS_OPTS + ("volumes",), env="EEDIFF_SEED", repro=ALWAYS,
      per={PYTEST: dict(type=int)}),
    O("--check", "only these checks (repeatable)", takes=("bulk", "one", "replay", "truth", "volumes", "check-truth"),
      choices=CHECK_NAMES, action="append", make="CHECK",
      make_targets=("bulk", "one", "truth", "fixture", "volumes", "check-truth"), repro=ALWAYS,
      per={"one": dict(help=None, action=None),
           "replay": dict(help=None, action=None, choices=REPLAYABLE, extra=dict(required=True)),
           "truth": dict(help="only these checks' queries (repeatable)"),
           "volumes": dict(help="only these checks' queries"),
           "check-truth": dict(help="only this check's queries", action=None)}),
    O("--profile", "how thoroughly each chunk is checked", default="quick", takes=RUN + (PYTEST,),
      choices=tuple(PROFILES), make="PROFILE", make_targets=HARNESS_OPTS + ("volumes",), env="EEDIFF_PROFILE",
      repro=ALWAYS, per={MAKE: dict(default="nightly"), PYTEST: dict(choices=("quick", "nightly"))}),
    O("--float-model", "EE float model used by both the machine and the reference", default="hw",
      takes=RUN + (PYTEST,), choices=("hw", "trunc"), make="FLOAT", make_targets=HARNESS_OPTS + ("volumes",),
      env="EEDIFF_FLOAT", repro=ALWAYS),
    # -- what is driven -----------------------------------------------------------------------------
    O("--image", "R5900 ELF (default: the stand-in)", takes=RUN + ("check-truth", PYTEST), make="IMAGE",
      make_targets=HARNESS_OPTS + ("check-truth",), env="EEDIFF_IMAGE", repro=SET,
      per={"check-truth": dict(help="the executable the file was made with (default: the stand-in)"),
           PYTEST: dict(default=DEFAULT_IMAGE, help="R5900 ELF to drive (SLUS_202.67 or the stand-in; default "
                                                    "$EEDIFF_IMAGE, else the stand-in)")}),
    O("--data", "DATA.BIN (default: build/synth/DATA.BIN)", takes=RUN + ("check-truth", PYTEST), make="DATA",
      make_targets=HARNESS_OPTS + ("check-truth",), env="EEDIFF_DATA", repro=SET,
      per={"check-truth": dict(help="its DATA.BIN (default: build/synth/DATA.BIN)"),
           PYTEST: dict(default=DEFAULT_DATA, help="DATA.BIN to read (default $EEDIFF_DATA, else the synthetic "
                                                   "corpus, generated on demand)")}),
    O("--disc", "ISO 9660 image with DATA/DATA.BIN", takes=RUN + ("check-truth", PYTEST), make="DISC",
      make_targets=HARNESS_OPTS + ("check-truth",), env="EEDIFF_DISC", repro=SET,
      per={"check-truth": dict(help="its disc image, for a file made from a DISC"),
           PYTEST: dict(help="ISO 9660 image holding DATA/DATA.BIN and the executable (default $EEDIFF_DISC)")}),
    O("--syms", "a stripped image's symbol sidecar (default: <image>.syms beside the image; an "
      "unstripped image has its own symbols)", takes=RUN, make="SYMS",
      make_targets=HARNESS_OPTS, repro=SET),
    O("--overlay", "make this overlay resident (gcmn, demo, desktop, toppage)", takes=RUN, repro=SET),
    # DECISION: a repro names --volume, --confirm and --reload when they are set: each changes what the
    # case drives or compares, and the repro had left them out (a run at their defaults writes the
    # same repro as before).
    O("--volume", "force the volume (inf, mut, out, qua); default: detected from the executable", takes=RUN,
      make="VOLUME", make_targets=HARNESS_OPTS, repro=SET),
    O("--confirm", "comma-separated sidecar names the harness calls or stubs, confirmed though their `how` "
      "is not exact or call", takes=RUN, make="CONFIRM", make_targets=HARNESS_OPTS, repro=SET),
    O("--reload", "load each chunk afresh for every check and speed, and require that load to equal the "
      "restored state of its first (the quick profile always does)", default=False, takes=RUN,
      action="store_true", repro=SET),
    O("--model", REFERENCE_MODEL, takes=("bulk", "one", "replay", "check-truth"), make="MODEL",
      make_targets=("bulk", "one", "check-truth"), repro=SET, extra=dict(metavar="'CMD ARGS'"),
      per={"check-truth": dict(help="a program answering docs/truth.md's protocol (default: the built-in "
                                    "reference, in process)")}),
    O("--engine", "the machine's engine (default: $EEMU_ENGINE, else native where a C compiler exists)",
      takes=RUN + (PYTEST,), choices=("native", "python", "lockstep"), make="ENGINE", env="EEMU_ENGINE",
      not_repro="every engine gives the same answers (lockstep compares them); the machine's choice, not the case's",
      not_rerun="every engine gives the same answers; the machine's choice, not the run's",
      # the machine reads $EEMU_ENGINE itself: pytest's --engine has no default of its own
      per={PYTEST: dict(env=None, help="the machine's engine for the differential tests (default: $EEMU_ENGINE, "
                                       "else native where a C compiler exists); the machine tests run every engine")}),
    # -- one: what is shown of the case ------------------------------------------------------------------
    O("--speed", "playback speed 1..65535 (default: seeded draw)", frame_speed, takes=("one",),
      not_repro="a case plays its seeded speeds; --speed is a person's override of that draw"),
    O("--shrink", "shrink the first mismatch of each check per failing chunk (default: the first 10 failing "
      "chunks per worker)", takes=("bulk", "one", "mutants"), action=BOOL,
      not_repro="how a failure is cut down, not what is compared",
      per={"one": dict(help=None, default=True), "mutants": dict(help=None, action="store_true", default=False)}),
    O("--json", default=False, takes=("one",), action="store_true", not_repro="how the result is printed"),
    # make's default None: the variable is empty and the subcommand's own default applies
    O("--show", "print at most this many mismatches", whole_number(1), 20, takes=("one", "check-truth"),
      make="SHOW", make_targets=("one", "check-truth"), not_repro="how much of the result is printed",
      per={"check-truth": dict(type=whole_number(0)), MAKE: dict(default=None)}),
    O("--time", "only the mismatches at this time (a mismatch's own repro gives it)", whole_number(),
      takes=("one",), make="TIME", make_targets=("one",), repro=ALWAYS),
    # -- replay: the shrunk input -----------------------------------------------------------------------
    O("--steps", type=listed(frame_speed), default="256", takes=("replay",)),
    O("--plan", type=listed(note_step), default="256:0", takes=("replay",)),
    O("--a1", type=whole_number(0), default=0, takes=("replay",)),
    O("--track", type=whole_number(0), default=0, takes=("replay",)),
    O("--times", type=listed(u32_number), default="1", takes=("replay",)),
    # -- a selection of chunks (bulk, truth, volumes) -------------------------------------------------
    O("--n", "how many chunks (at least 1; at least the pool size: all of them; default 100, or the profile's "
      "sample)", whole_number(1), takes=("bulk", "truth", "volumes"), make="N",
      make_targets=("bulk", "truth", "fixture", "volumes"),
      per={"truth": dict(help="how many chunks (at least the pool size: all of them; default 100, or the "
                              "profile's sample)"),
           "volumes": dict(help="how many chunks (default 100)"), MAKE: dict(default=100), PYTHON: dict(default=100)}),
    O("--jobs", "worker processes: auto or at least 1", job_count, "auto", takes=("bulk", "truth", "volumes"),
      make="JOBS", make_targets=("bulk", "truth", "fixture", "volumes"),
      per={"truth": dict(default="1", help="worker processes: auto or at least 1 (default 1)"),
           "volumes": dict(default="1", help="worker processes (default 1)"), PYTHON: dict(default=1)}),
    O("--chunks", "explicit comma-separated chunk ids instead of a sample", takes=("bulk", "truth", "volumes")),
    # -- bulk: the run directory and how the run goes ---------------------------------------------------
    O("--resume", "resume this run directory", takes=("bulk",),
      not_rerun="the resume command names the run directory itself"),
    O("--out", "write (or resume) exactly this run directory", takes=("bulk", "merge", "truth", "volumes"),
      not_rerun="the rerun and resume commands name the run directory themselves", make="OUT", make_targets=("bulk", "truth", "fixture", "volumes", "merge"),
      per={"merge": dict(help="the merged run directory (new)", extra=dict(required=True)),
           "truth": dict(help="the truth file to write (.jsonl, or .jsonl.gz compressed)", extra=dict(required=True)),
           "volumes": dict(help="the directory for the truth files and volumes.json", extra=dict(required=True))}),
    O("--fresh", "never resume an identical incomplete run", default=False, takes=("bulk",), action="store_true",
      make="FRESH", make_targets=("bulk",), not_rerun="whether a run starts anew is the rerun's own choice"),
    O("--runs", "runs root (default build/runs)", takes=("bulk",),
      not_rerun="where run directories go, not what the run is"),
    O("--fail-fast", "stop when K chunks in a row fail with the same error at the same pc (default 5)",
      whole_number(1), 5, takes=("bulk",), make="FAIL_FAST", make_targets=("bulk",), extra=dict(metavar="K"),
      per={MAKE: dict(default=None)}),
    O("--force", "resume --resume/--out even when its parameters differ from this command's", default=False,
      takes=("bulk",), action="store_true", make="FORCE", make_targets=("bulk",),
      not_rerun="resuming despite different parameters is the resume's own choice"),
    O("--allow-bad-members", "corrupt or unreadable archive members are listed but do not fail the run",
      default=False, takes=("bulk", PYTEST), action="store_true", make="ALLOW_BAD_MEMBERS", make_targets=("bulk",),
      per={PYTEST: dict(help="differential tests: run on an archive with corrupt or unreadable "
                                            "members")}),
    O("--cluster", "check on a Dask scheduler (tcp://host:8786) or a LocalCluster of N workers (local:N)",
      takes=("bulk",), make="CLUSTER", make_targets=("bulk",), extra=dict(metavar="ADDRESS")),
    O("--shard", "check the K-th of M balanced slices of the selection (merge puts them together)",
      takes=("bulk",), make="SHARD", make_targets=("bulk",), extra=dict(metavar="K/M")),
    O("--model-timeout", "seconds a --model may take for one chunk (default 120)", seconds, 120.0, takes=("bulk",)),
    O("--profile-cpu", "time the workers' parts (machine per function, set-up, reference per query kind, "
      "comparison, record writing), print the table and write it to FILE as JSON", takes=("bulk",),
      extra=dict(nargs="?", const="-", metavar="FILE"), not_rerun="a measurement of the run, not the run"),
    # -- the other subcommands' own ----------------------------------------------------------------------
    O("runs", "the shard run directories", takes=("merge",), make="RUNS", make_targets=("merge",),
      extra=dict(nargs="+")),
    O("--name", "only these mutants", takes=("mutants",), action="append"),
    O("run", "the run directory", takes=("coverage",)),
    O("--function", "one function (symbol or short name)", takes=("coverage",), extra=dict(metavar="NAME")),
    O("--budget", "NAME=STEPS: override a derived step budget", takes=("probe",), action="append"),
    O("--format", "truth (default): docs/truth.md's file; anim-fixture: the users' animation fixture "
      "(docs/spec/fixtures.md §1)", default="truth", takes=("truth",), choices=("truth", "anim-fixture")),
    O("--from", "anim-fixture: whose answers the rows carry (default the game's)", default="game",
      takes=("truth",), choices=("game", "reference"), extra=dict(dest="source")),
    O("--images", "space-separated executables, one per volume", takes=("volumes",), make="IMAGES",
      make_targets=("volumes",)),
    O("--datas", "space-separated DATA.BIN, one per image (default: --data)", takes=("volumes",), make="DATAS",
      make_targets=("volumes",)),
    O("--discs", "space-separated disc images, one per volume", takes=("volumes",), make="DISCS",
      make_targets=("volumes",)),
    O("file", "the truth file (python -m harness truth --out FILE)", takes=("check-truth",), make="TRUTH",
      make_targets=("check-truth",), per={MAKE: dict(default="build/truth.jsonl")}),
    O("--timeout", "seconds a model may take for one chunk (default 120)", seconds, 120.0, takes=("check-truth",)),
    O("--json", "write every mismatch record there, one a line", takes=("check-truth",), extra=dict(metavar="FILE")),
    # -- pytest's own ----------------------------------------------------------------------------------
    O("--chunks", "differential tests: a seeded sample of this many chunks (0 = profile default)", takes=(PYTEST,),
      type=chunk_count, default=0, env="EEDIFF_CHUNKS"),
    O("--slow", "also run tests marked slow", takes=(PYTEST,), action="store_true", default=False),
)
del O


def rows(entry):
    """The rows `entry` takes, as it sees them, in table order."""
    return [r.at(entry) for r in ROWS if entry in r.takes]


def default(flag, entry):
    """The default of `flag` at `entry` (a subcommand, make, pytest or python): the row's, or its `per`."""
    for r in ROWS:
        if r.flag == flag and (entry in r.takes or entry in (MAKE, PYTHON)):
            return r.at(entry).default
    raise KeyError(f"no option {flag}")


def common_rows():
    """The rows every subcommand that drives the game takes, the same in each (`common`)."""
    return [r for r in ROWS if set(RUN) <= set(r.takes) and not set(RUN) & set(r.per)]


def add_arguments(parser, command, named=None, only=None):
    """Add `command`'s rows (or the rows `only`) to an argparse parser; `named` resolves the
    choices the rows name (CHECK_NAMES, REPLAYABLE: the check registry's)."""
    for r in (rows(command) if only is None else [r.at(command) for r in only]):
        parser.add_argument(r.flag, **r.argparse_keywords(named or {}))


def pytest_options(environ):
    """(flag, addoption keywords) of the pytest plugin; a row's environment variable stands for the
    option when it is not given."""
    out = []
    for r in rows(PYTEST):
        if r.env:
            r = dataclasses.replace(r, default=from_environment(environ, r.env, r.default))
        kw = r.argparse_keywords({})
        kw.setdefault("default", None)
        out.append((r.flag, kw))
    return out


def from_environment(environ, name, fallback):
    """The value of environment variable `name` for an option whose default is `fallback` (a whole
    number when the fallback is one); a bad value is one clear line."""
    raw = environ.get(name)
    if raw is None or isinstance(fallback, bool) or not isinstance(fallback, int):
        return fallback if raw is None else raw
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"eediff: {name}={raw!r} is not a whole number") from None


def make_variables():
    """option -> the make variable that feeds it (the error messages of harness.arguments name
    these for a run through make; harness.commands writes make commands with them)."""
    return {r.flag: r.make for r in ROWS if r.make and not r.positional}


MAKE_VARIABLES = make_variables()

# the profile each entry point runs when none is named: make's targets, each subcommand that
# takes --profile, the pytest plugin and the Options of the Python API
DEFAULT_PROFILE = {entry: default("--profile", entry)
                   for entry in (MAKE,) + RUN + (PYTEST, PYTHON)}


def case_rows():
    """The rows a case's repro names, in the order it names them (`one` takes each of them)."""
    return [r.at("one") for r in ROWS if r.repro and "one" in r.takes]


def describe():
    """The table as text (`python -m harness options`): each option's make variable, environment
    variable, defaults (the row's, then each entry point's own) and who takes it; first, the
    profile each entry point runs when none is named."""
    by_profile = {}
    for entry, name in DEFAULT_PROFILE.items():
        by_profile.setdefault(name, []).append(entry)
    lines = ["default profile: " + "; ".join(f"{name} ({', '.join(entries)})" for name, entries in by_profile.items()),
             f"{'option':<20} {'make':<18} {'environment':<15} {'default':<36} taken by"]
    for r in ROWS:
        shown = [shown_default(r.default)] + [f"{entry}: {shown_default(over['default'])}"
                                             for entry, over in r.per.items() if "default" in over]
        lines.append(f"{r.flag:<20} {r.make or '':<18} {r.env or '':<15} {', '.join(shown):<36} {', '.join(r.takes)}")
    return lines


def shown_default(value):
    if value is None:
        return "-"
    text = str(value)
    return os.path.relpath(text, ROOT) if os.path.isabs(text) else text
