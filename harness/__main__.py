"""Command line: python -m harness bulk | one | replay | mutants | probe | truth | check-truth (see `--help`)."""
from __future__ import annotations

import json
import os
import sys

from corpus.names import counted, from_argv, printable, printable_lines, shell_word
from ground.exits import NOTHING_COMPARED

from harness.arguments import Parser, engine_in_use
from harness import HarnessError, option_table
from harness.options import DEFAULT_IMAGE, Options
from harness import checks


def common(p):
    """The options of every subcommand that drives the game (the option table's common rows)."""
    option_table.add_arguments(p, "one", only=option_table.common_rows())


def options(a, **kw):
    # DECISION: the executable's index tables (formats.md §1.3) are used to find the archive's
    # members only when both the image and the archive are named (the real disc: IMAGE + DATA or
    # DISC). A mutant or rebuilt stand-in run against the default corpus reads the corpus as
    # the bundled defaults do, so a stale table in a mutant ELF cannot change which chunks exist.
    explicit = a.image and (a.data or a.disc)
    image = a.image
    if image is None and a.disc:
        from harness.options import disc_executable
        image = disc_executable(a.disc)
    return Options(image=image or DEFAULT_IMAGE, data=a.data, disc=a.disc, seed=a.seed,
                   profile=a.profile, float_model=a.float_model, image_from_disc=not a.image and bool(a.disc),
                   corpus_image=a.image if explicit else None, reload=getattr(a, "reload", False),
                   syms=a.syms, overlay=a.overlay, volume=a.volume,
                   confirm=tuple(n.strip() for n in (a.confirm or "").split(",") if n.strip()), **kw)


def cmd_bulk(a):
    from harness.runners.bulk.command import run_bulk
    ids = [c.strip() for c in a.chunks.split(",")] if a.chunks else None
    if a.cluster:
        from harness.runners.bulk.cluster import local_workers
        local_workers(a.cluster)          # CLUSTER=local:N is checked before anything is started
    n_given = a.n is not None       # a profile's sample is only the default of N (runners/bulk/staged.py)
    a.n = a.n if n_given else Options.n
    opts = options(a, n=a.n, jobs=a.jobs, checks=a.check or None, resume=a.resume,
                   fresh=a.fresh, chunk_ids=ids, out=a.out, shrink=a.shrink, force=a.force,
                   fail_fast=a.fail_fast, allow_bad_members=a.allow_bad_members,
                   cluster=a.cluster or None, shard=parse_shard(a.shard), model=a.model or None,
                   model_timeout=a.model_timeout,
                   **({"runs": a.runs} if a.runs else {}))
    if opts.model:
        from harness.runners.cases.model_chunk import preflight
        preflight(opts.model)
    from harness.runners.bulk.staged import apply_profile, probe_gate
    opts = apply_profile(opts, n_given=n_given)
    if not probe_gate(opts):
        return 1
    from harness.runners.bulk.run import RunDirError, RunDirInvalid
    if a.profile_cpu:
        return profiled_bulk(opts, a.profile_cpu)
    try:
        return run_bulk(opts, sys.argv)
    except (RunDirError, RunDirInvalid) as exc:
        raise HarnessError(str(exc)) from None
    except OSError as exc:
        if exc.filename is None:
            raise
        raise HarnessError(f"cannot write {exc.filename}: {exc.strerror}") from None


def profiled_bulk(opts, out):
    """cmd_bulk's run with its workers' CPU profile (harness/runners/bulk/cpu_profile.py)."""
    import tempfile
    from harness.runners.bulk import cpu_profile
    from harness.runners.bulk.command import run_bulk
    from harness.runners.bulk.run import RunDirError, RunDirInvalid
    with tempfile.TemporaryDirectory(prefix="eediff-profile-") as where:
        os.environ[cpu_profile.ENV] = where
        try:
            status = run_bulk(opts, sys.argv)
        except (RunDirError, RunDirInvalid) as exc:
            raise HarnessError(str(exc)) from None
        finally:
            del os.environ[cpu_profile.ENV]
        prof = cpu_profile.collect(where)
    print("CPU profile of the workers (exclusive seconds per part):")
    print(cpu_profile.table(prof))
    if out != "-":
        try:
            with open(out, "w", encoding="utf-8") as f:
                json.dump(prof, f, indent=1, sort_keys=True)
        except OSError as exc:
            raise HarnessError(f"cannot write {out}: {exc.strerror}") from None
    return status


def parse_shard(text):
    from harness.runners.bulk.shard import parse
    return parse(text) if text else None


def cmd_merge(a):
    from harness.runners.bulk.merge import merge_runs
    from harness.runners.bulk.run import RunDirError, RunDirInvalid
    try:
        return merge_runs(a.runs, a.out)
    except (RunDirError, RunDirInvalid) as exc:
        raise HarnessError(str(exc)) from None


def cmd_one(a):
    from harness.runners.cases import morph_pseudo
    from harness.runners.cases.chunk import check_chunk
    from harness.profiles import run_profile
    opts = options(a, model=a.model or None)
    if a.case == "synthetic::morph" and not opts.model:
        return one_synthetic_morph(opts, a)
    if opts.model:
        return one_with_model(opts, a)
    if morph_pseudo.is_pseudo(a.case):
        return one_pseudo(opts, a)
    if a.case.startswith("synthetic::edge/"):
        return one_edge_chunk(opts, a)
    corpus = archive_case(opts, a.case)
    ch = corpus.chunk(a.case)
    game = opts.validate_image()
    ctx = opts.context(a.case)
    res = check_chunk(game, ch, ctx, run_profile(opts), only=[a.check] if a.check else None,
                      speed=a.speed)
    if res["mismatches"] and a.shrink:
        # the same shrink as bulk's, on the same mismatches (the first of each check)
        from harness.shrinking import shrink_first_of_each_check
        shrink_first_of_each_check(game, ch, ctx, res)
        for note in res.get("notes") or ():
            print(printable(f"({note})"), file=sys.stderr)
    return show_one(a, res)


def archive_case(opts, case):
    """The corpus, when `case` is one of its chunks; else a HarnessError naming it (and near ids)."""
    if not case.strip():
        raise HarnessError("CASE is required: a chunk id like member::ANM_name "
                           "(.venv/bin/python -m corpus list --grep NAME finds them)")
    corpus = opts.open_corpus()
    ids = corpus.chunk_ids()
    if case not in set(ids):
        from corpus.listing import did_you_mean
        near = did_you_mean(case, ids)
        hint = f"did you mean {', '.join(near)}? " if near else ""
        where = opts.disc if opts.disc and not opts.data else opts.data
        raise HarnessError(f"CASE={case}: no such chunk in {where} ({hint}ids look like member::ANM_name; "
                           f".venv/bin/python -m corpus list --grep NAME lists them)")
    return corpus


def one_with_model(opts, a):
    """`one --model`: a chunk of the archive, an edge chunk or a part of the synthetic blends,
    with the model as the expected side (the record a model bulk writes for it)."""
    from harness.runners.cases import edge_chunks, morph_pseudo
    from harness.runners.cases.model_chunk import ModelSlot, model_record, preflight
    preflight(opts.model)
    if a.speed is not None:
        raise HarnessError("--speed and --model: a model run plays the profile's drawn speeds")
    if a.case == "synthetic::morph":
        raise HarnessError(f"CASE=synthetic::morph with --model: name one part of it "
                           f"({', '.join(morph_pseudo.ids())})")
    chunk_of = None
    if not (morph_pseudo.is_pseudo(a.case) or edge_chunks.is_edge(a.case)):
        chunk_of = archive_case(opts, a.case).chunk
    game = opts.validate_image()
    slot = ModelSlot(opts.model)
    try:
        res = model_record(opts, slot, None, a.case, [a.check] if a.check else None, chunk_of, lambda: game,
                           a.shrink)
    finally:
        slot.close()
    return show_one(a, res)


def one_pseudo(opts, a):
    """`one --case synthetic::morph/<part>`: one part of the synthetic blends (a bulk's record of it)."""
    from harness.runners.cases import morph_pseudo
    try:
        morph_pseudo.cases(a.case)
    except ValueError as exc:
        raise HarnessError(f"CASE={a.case}: {exc}") from None
    return show_one(a, morph_pseudo.check_pseudo(opts.validate_image(), a.case, opts.context(a.case)))


def show_one(a, res):
    """`one`'s output and exit status for one checked chunk (of the archive or built by code):
    the mismatches of --check at --time (the others counted as hidden), a closing line, and 1 for
    a chunk that fails whatever --time shows of it."""
    from harness.compare.show import format_mismatch
    mism = [m for m in res["mismatches"] if not a.check or m["check"] == a.check or
            (m["check"] in checks.names() and checks.resolve(m["check"]).name == a.check)]
    failed = bool(res["mismatches"])
    hidden = 0
    if a.time is not None:
        at_time = [m for m in mism if str(m.get("time")) == str(a.time)]
        hidden, mism = len(mism) - len(at_time), at_time
    if a.json:
        print(json.dumps(res, indent=1))
    else:
        for m in mism[:a.show]:
            print(format_mismatch(m))
        at = f" at time {a.time}" if a.time is not None else ""
        hid = f" ({hidden} at other times hidden by --time)" if hidden else ""
        print(printable(f"{a.case}: checks {', '.join(res['timing']) or 'none applicable'}; "
              f"{counted(len(mism), 'mismatch')}{at}{hid}{' (first %d shown)' % a.show if len(mism) > a.show else ''}; "
              f"counters {json.dumps(res['counters'])}; {res.get('seconds') or 0.0:.1f} s, engine {engine_in_use()}"))
    if res.get("error"):
        print(printable(f"error in {res['error'].get('check')}: {res['error']['type']}: "
                        f"{res['error']['message']}"), file=sys.stderr)
    if (res.get("error") or {}).get("check") == "input":
        return 2                      # a malformed chunk is bad input (the error line names it)
    if failed or res.get("error"):
        return 1                      # a chunk that fails fails whatever --time shows of it
    if not res["timing"]:
        why = f"check {a.check} does not apply to this chunk" if a.check else "no check applies to this chunk"
        print(printable(f"{a.case}: nothing compared ({why})"), file=sys.stderr)
        return NOTHING_COMPARED
    return 0


def one_synthetic_morph(opts, a):
    """`make one CASE=synthetic::morph`: the synthetic blends of checks.md §5.2 (all 300 of B)."""
    from harness.compare.show import format_mismatch
    from harness.runners.cases.suite_runs import morph_synthetic_suite
    t = morph_synthetic_suite(opts.validate_image(), opts)
    for m in t.mismatches[:a.show]:
        print(format_mismatch(m))
    print(f"synthetic::morph: {counted(len(t.mismatches), 'mismatch')}; counters {json.dumps(dict(t.counters))}")
    return 1 if t.mismatches else 0


def one_edge_chunk(opts, a):
    """`one --case synthetic::edge/<name>`: an edge chunk beyond the disc (corpus/synth/edge.py),
    built by code whatever DATA is; the output and exit status of a chunk of the archive."""
    from harness.profiles import run_profile
    from harness.runners.cases import edge_chunks
    try:
        edge_chunks.chunk(a.case) if not a.case.endswith("/morph-rescale") else None
    except ValueError as exc:
        raise HarnessError(f"CASE={a.case}: {exc}") from None
    res = edge_chunks.check_edge(opts.validate_image(), a.case, opts.context(a.case), run_profile(opts),
                                 only=[a.check] if a.check else None)
    return show_one(a, res)


def cmd_replay(a):
    from harness.compare.show import format_mismatch
    opts = options(a, model=a.model or None)
    ch = opts.open_corpus().chunk(a.case)
    game = opts.validate_image()
    ctx = opts.context(a.case)
    how = checks.get(a.check).replay          # its input is the option named by how.key, e.g. --steps
    items, args = getattr(a, how.key), {k: getattr(a, k) for k in how.args}
    if opts.model:                            # the game and the model on the input (docs/truth.md §5)
        from harness.profiles import run_profile
        from harness.runners.cases.model_chunk import ModelReplay, ModelSlot, preflight
        preflight(opts.model)
        slot = ModelSlot(opts.model)
        try:
            t = ModelReplay(slot, run_profile(opts).exact_local)(a.check, game, ch, ctx, items, **args)
        finally:
            slot.close()
    else:
        t = checks.replay(a.check, game, ch, ctx, items, **args)
    for m in t.mismatches:
        print(format_mismatch(m))
    print(printable(f"{a.case} replay {a.check}: {counted(len(t.mismatches), 'mismatch')}; counters {json.dumps(dict(t.counters))}"))
    return 1 if t.mismatches else 0


def cmd_mutants(a):
    from harness.runners.mutants import find_mutants, run_mutant
    opts = options(a)
    muts = find_mutants(a.name or None)
    if not muts:
        raise HarnessError("no mutants found under standin/mutants/*.patch")
    bad = 0
    for mut in muts:
        try:
            caught, results = run_mutant(mut, opts, shrink=a.shrink)
        except HarnessError as exc:
            print(f"FAIL {mut.name}: {exc}")
            bad += 1
            continue
        seen = sorted({m["check"] for r in results for m in r["mismatches"]})
        errs = [r["error"] for r in results if r.get("error")]
        status = "caught" if caught else "NOT CAUGHT"
        print(f"{'ok  ' if caught else 'FAIL'} {mut.name}: {status} by {mut.catches} "
              f"({counted(len(results), 'chunk')}; checks that saw it: {', '.join(seen) or 'none'}"
              f"{'; errors: ' + '; '.join(e['message'][:80] for e in errs) if errs else ''})")
        if caught:
            first = next(m for r in results for m in r["mismatches"] if m["check"] == mut.catches)
            print("     " + first["repro"].replace(f"--image {mut.elf}", f"--image {shell_word(os.path.relpath(mut.elf))}"))
        bad += not caught
    print(f"{len(muts) - bad}/{len(muts)} mutants caught by their named check")
    return 1 if bad else 0


def cmd_probe(a):
    from harness.driver.budgets import parse_overrides
    from harness.runners.probing.probe import run_cli
    try:
        budgets = parse_overrides(a.budget)
    except ValueError as exc:
        raise HarnessError(str(exc)) from None
    return run_cli(options(a), budgets=budgets)


def cmd_coverage(a):
    """Per function: instructions and branch directions covered; --function NAME: its disassembly
    with never-executed instructions ('!!') and never-taken directions marked."""
    from harness.runners.bulk import codecov
    cov = codecov.run_coverage(a.run)
    image = codecov.run_image(a.run)
    if not image or not os.path.isfile(image):
        raise HarnessError(f"{a.run}: the run's executable {image!r} is not there to disassemble")
    name = a.function
    from eemu_ext.errors import ElfError
    try:
        funcs = codecov.report(image, cov, name)
    except ValueError as exc:
        raise HarnessError(f"--function {a.function}: {exc} in {image}") from None
    except ElfError as exc:
        raise HarnessError(f"--function {a.function}: {exc}") from None
    ic, it, dc, dt = codecov.totals(funcs)
    print(printable_lines("\n".join(codecov.table(funcs))))
    n_served = len(codecov.served(funcs))
    print(f"total: instructions {ic}/{it} ({codecov.pct(ic, it)}), branch directions {dc}/{dt} "
          f"({codecov.pct(dc, dt)}) over {len(funcs) - n_served} functions"
          + (f"; {n_served} served by the harness, not counted" if n_served else ""))
    if name:
        for f in funcs:
            print(printable_lines("\n".join(f.lines)))
    return 0


def cmd_truth(a):
    """The game's answers to the checks' queries over the selected chunks, as a truth file."""
    from harness.runners.truth_runs.truth_export import run_truth
    from harness.runners.bulk.staged import apply_profile
    ids = [c.strip() for c in a.chunks.split(",")] if a.chunks else None
    n_given = a.n is not None
    opts = options(a, n=a.n if n_given else Options.n, jobs=a.jobs, checks=a.check or None, chunk_ids=ids)
    opts = apply_profile(opts, n_given=n_given)
    # DECISION: truth never runs the readiness probe (the first-contact profile's gate): it compares
    # nothing, and a game the probe would stop fails its chunks, each line naming the error
    opts.open_corpus()
    if a.format == "anim-fixture":
        from harness.runners.truth_runs.fixture_export import run_fixture
        return run_fixture(opts, a.out, a.jobs, source=a.source)
    if a.source != "game":
        raise HarnessError("--from reference: only with --format anim-fixture")
    return run_truth(opts, a.out, a.jobs)


def cmd_volumes(a):
    """Each volume's truth file checked against the reference, then the volumes' answers compared."""
    import argparse
    from harness.runners.bulk.staged import apply_profile
    from harness.runners.truth_runs.volumes import run_volumes
    images, datas, discs = (a.images or "").split(), (a.datas or "").split(), (a.discs or "").split()
    if discs and (images or datas):
        raise HarnessError("volumes: give DISCS= alone, or IMAGES= (with DATAS=, one per image)")
    if datas and len(datas) != len(images):
        raise HarnessError(f"volumes: {len(images)} IMAGES= but {len(datas)} DATAS= (one archive per image)")
    picks = [dict(image=None, data=None, disc=d) for d in discs] or [
        dict(image=i, data=datas[k] if datas else a.data, disc=None) for k, i in enumerate(images)]
    if len(picks) < 2:
        raise HarnessError("volumes: name at least two volumes (DISCS='a.iso b.iso' or IMAGES='a.elf b.elf')")
    sets = []
    for pick in picks:
        v = argparse.Namespace(**dict(vars(a), **pick))
        ids = [c.strip() for c in from_argv(a.chunks).split(",")] if a.chunks else None
        opts = options(v, n=a.n or Options.n, jobs=a.jobs, checks=a.check or None, chunk_ids=ids)
        opts = apply_profile(opts, n_given=a.n is not None)
        opts.open_corpus()
        sets.append(opts)
    return run_volumes(sets, a.out, a.jobs)


def cmd_options(_a):
    """The option table as text (harness/option_table.py)."""
    print("\n".join(option_table.describe()))
    return 0


def cmd_check_truth(a):
    """A model (the built-in reference, or --model CMD) against a truth file, without the emulator."""
    from harness.runners.truth_runs.check_truth import check_truth
    from harness.truth.protocol import ModelError
    try:
        status, _ = check_truth(a.file, model_cmd=a.model, image=a.image, data=a.data, disc=a.disc,
                                case=a.case, check=a.check, timeout=a.timeout, show=a.show, json_out=a.json)
    except ModelError as exc:
        print(f"harness: {printable(exc)}", file=sys.stderr)
        print("MODEL ERROR (exit 1)", file=sys.stderr)
        return 1
    return status


# each subcommand's options are the option table's rows that name it (harness/option_table.py)
SUBCOMMAND_HELP = {
    "bulk": "check N chunks (N >= pool size: all of them), write build/runs/<id>/",
    "merge": "combine the shard runs of one selection into one run directory",
    "one": "every check (or --check C) on one chunk",
    "replay": "re-run one check on explicit steps/plan/times (shrunk repros)",
    "mutants": "every stand-in mutant must be caught by its named check",
    "coverage": "coverage of the game's code in a run: per function, instructions and branch directions "
                "covered, with --function its annotated disassembly",
    "probe": "readiness probe: each entry point on a few small chunks, watched",
    "truth": "write the game's answers to the checks' queries over a selection (the options of bulk) as a "
             "truth file (docs/truth.md)",
    "volumes": "each volume's truth file against the reference, then each later volume's game against the "
               "first volume's truth file on the chunks they share",
    "check-truth": "compare a model with a truth file, without the emulator",
    "options": "the option table: each option's make variable, environment variable, defaults and "
               "subcommands, and the profile each entry point runs by default",
}


def parser():
    """The command line: each subcommand with the option table's rows that name it."""
    ap = Parser(prog=".venv/bin/python -m harness", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    named = {option_table.CHECK_NAMES: checks.names(), option_table.REPLAYABLE: checks.replayable()}
    for command in option_table.SUBCOMMANDS:
        option_table.add_arguments(sub.add_parser(command, help=SUBCOMMAND_HELP[command]), command, named)
    return ap


def main(argv=None):
    a = parser().parse_args(argv)
    if getattr(a, "engine", None):
        os.environ["EEMU_ENGINE"] = a.engine        # every Machine, in this process and its workers
    if getattr(a, "case", None) is not None:
        a.case = from_argv(a.case)
    if a.cmd == "truth" and a.chunks:
        a.chunks = from_argv(a.chunks)
    try:
        engine_in_use()
    except ValueError as exc:
        print(f"harness: {printable(exc)}", file=sys.stderr)
        return 2
    try:
        return {"bulk": cmd_bulk, "one": cmd_one, "replay": cmd_replay, "mutants": cmd_mutants,
                "probe": cmd_probe, "merge": cmd_merge, "coverage": cmd_coverage, "truth": cmd_truth, "volumes": cmd_volumes,
                "check-truth": cmd_check_truth, "options": cmd_options}[a.cmd](a)
    except HarnessError as exc:
        print(f"harness: {printable(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
