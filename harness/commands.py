"""Every command the harness prints or records for a person to paste: a case's `one` repro, a
shrunk input's `replay`, the `bulk --resume` / `make bulk ... OUT=` line that resumes a run, the
line that re-runs it (params.json "rerun", which the report shows) and `make merge`.

A command is a list of (option, value) pairs written in one of two forms: the direct module
form (`.venv/bin/python -m harness VERB --option value ...`) or the make form (`make VERB
VARIABLE=value ...`, through MAKE_VARIABLES, the one option -> make variable table). Every value
is one shell word (corpus.names.shell_word), so whatever the archive's names hold is safe to paste.

DECISION: this module is the bottom of the harness's layers (compare.mismatch builds a repro
with it): of the harness it imports only the option table; callers pass defaults and resolved
check names.
"""
from __future__ import annotations

from corpus.names import shell_word

from harness import option_table

PYTHON = ".venv/bin/python"

# option -> the make variable that feeds it: the option table's make column (the error messages of
# harness.arguments name these for a run through make)
MAKE_VARIABLES = option_table.MAKE_VARIABLES

FLAG = True        # the value of an option that takes none (--allow-bad-members)


def module_form(verb, pairs):
    """`.venv/bin/python -m harness VERB --option value ...` (an option whose value is None is left out)."""
    words = [PYTHON, "-m", "harness", verb]
    for opt, val in pairs:
        if val is FLAG:
            words.append(opt)
        elif val is not None and val != "":
            words += [opt, shell_word(val)]
    return " ".join(words)


def make_form(target, pairs):
    """`make TARGET VAR=value ...`, or None when an option has no make variable or comes twice
    (make passes one value per variable)."""
    given = [(o, v) for o, v in pairs if v is not None and v != ""]
    opts = [o for o, _ in given]
    if any(o not in MAKE_VARIABLES for o in opts) or len(set(opts)) != len(opts):
        return None
    return " ".join([f"make {target}"] + [f"{MAKE_VARIABLES[o]}={'1' if v is FLAG else shell_word(v)}"
                                          for o, v in given])


# -- one chunk: `one` and `replay` ------------------------------------------------------------------

def case_pairs(ctx, **given):
    """The options that repeat a case (harness.compare.mismatch.CaseContext), in the option table's
    order: each row a repro names (option_table.case_rows), its value the context's attribute or
    the one `given` (check=, time=; chunk=None leaves the case out). A row named ALWAYS is named
    whenever it has a value; a row named SET only when it differs from its default (the input
    files: from the run's defaults, ctx.defaults, keyed by make variable)."""
    pairs = []
    for r in option_table.case_rows():
        value = given[r.name] if r.name in given else getattr(ctx, r.name, None)
        if r.repro == option_table.SET and value == ctx.defaults.get(r.make, r.default):
            value = None
        pairs.append((r.flag, word_of(value)))
    return pairs


def word_of(value):
    """An option's value as a command writes it: True a flag alone, a list or tuple comma-separated,
    False or empty left out."""
    if value is True:
        return FLAG
    if value is False:
        return None
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or None
    return value


def one_command(ctx, check=None, time=None):
    """The repro of a case: `one` on its chunk, showing the mismatches at `time` first.

    DECISION: a repro is a direct `.venv/bin/python -m harness one` command, every value one
    shell word (corpus.names.shell_word), never a `make one CASE=...` line: make expands
    `$(...)` in a variable's value and its recipe re-opens the shell's quoting, so a name
    from DATA.BIN could run commands. `make one CASE=...` stays for typing by hand."""
    return module_form("one", case_pairs(ctx, check=check, time=time))


def replay_command(ctx, m, key, best, check):
    """The `replay` of a shrunk input: `check` (the mismatch m's check, an alias resolved by the
    caller) on `best`, the minimal steps / note plan / times (key) that still fail."""
    pairs = [("--case", ctx.chunk), ("--check", check)]
    if key == "steps":
        pairs.append(("--steps", ",".join(str(s) for s in best)))
    elif key == "plan":
        pairs.append(("--plan", ",".join(f"{s}:{int(bool(r))}" for s, r in best)))
        if m["check"] == "fobj":
            pairs.append(("--a1", str(int((m.get("context") or {}).get("a1", 0)))))
    else:
        pairs += [("--track", str(int(m["track"]))), ("--times", ",".join(str(int(t)) for t in best))]
    return module_form("replay", pairs + case_pairs(ctx, chunk=None, check=None, time=None))


# -- a run: `bulk --resume`, its make form, the re-run line, `make merge` ----------------------------

def bulk_pairs(params, opts, default_image, default_data, default_fail_fast):
    """The options of a bulk run (params.json and its Options), in the order make takes them;
    an option at its default is left out. After the options make takes come the option table's
    other rows of bulk (--syms, --overlay, --volume, --confirm, --reload, --model-timeout, ...)
    at a value other than their default, but those that say why a rerun leaves them out."""
    DEFAULT_K = default_fail_fast
    checks = params.get("checks") or []
    shrink = getattr(opts, "shrink", None)
    fail_fast = getattr(opts, "fail_fast", DEFAULT_K)
    image = None if opts.image == default_image or getattr(opts, "image_from_disc", False) else opts.image
    shard = params.get("shard")
    pairs = ([("--n", params.get("n")), ("--seed", params.get("seed")), ("--profile", params.get("profile")),
              ("--float-model", params.get("float_model")), ("--jobs", opts.jobs)]
             + [("--check", c) for c in checks]
             + [("--image", image), ("--data", opts.data if opts.data != default_data else None),
                ("--disc", opts.disc), ("--chunks", ",".join(opts.chunk_ids) if opts.chunk_ids else None),
                ("--shard", f"{shard['k']}/{shard['m']}" if shard else None), ("--cluster", opts.cluster),
                ("--allow-bad-members", FLAG if opts.allow_bad_members else None),
                ("--fail-fast", fail_fast if fail_fast != DEFAULT_K else None),
                ("--model", getattr(opts, "model", None))])
    # DECISION: a rerun names --syms, --overlay, --volume, --confirm, --reload and --model-timeout
    # when they are set (it had left them out, and a run with a sidecar was rerun without it); a run
    # at their defaults has the same rerun line as before
    named = {flag for flag, _ in pairs} | {"--check", "--shrink"}
    pairs += [(r.flag, word_of(getattr(opts, r.name, None))) for r in rerun_rows()
              if r.flag not in named and getattr(opts, r.name, None) != r.default]
    return pairs + [("--shrink" if shrink else "--no-shrink", None if shrink is None else FLAG)]


def rerun_rows():
    """The option table's rows of bulk that a run's rerun and resume commands name."""
    return [r for r in option_table.rows("bulk") if not r.not_rerun]


def resume_command(path, pairs, via_make):
    """The command that resumes the run at `path` with its own options: through make (`make bulk
    ... OUT=<path>`, OUT= resumes exactly that directory) when the run was started through make
    and make can say it, else `bulk --resume <path> ...`."""
    line = make_form("bulk", pairs + [("--out", path)]) if via_make else None
    return line or module_form("bulk", [("--resume", path)] + pairs)


def rerun_command(pairs, out=None):
    """The line that re-runs a run (params.json "rerun", the report's "command"): the make form,
    with OUT= when the run was given one, else the module form.

    DECISION: JOBS is the job count the run resolved (auto: the cores it had), so the line
    repeats the run as it ran."""
    pairs = pairs + [("--out", out)]
    return make_form("bulk", pairs) or module_form("bulk", pairs)


def merge_command(runs, out):
    """`make merge RUNS="..." OUT=...` of a merged run."""
    return f"make merge RUNS={shell_word(' '.join(str(r) for r in runs))} OUT={shell_word(out)}"
