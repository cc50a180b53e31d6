"""A staged first run: what a profile forces (float model, sample) and the probe it runs first."""
from __future__ import annotations

import dataclasses
import sys

from harness.profiles import profile


def apply_profile(opts, out=None, n_given=False):
    """Options with the profile's forced float model and sample size; a note for each it changed.
    DECISION: a profile that forces a setting wins over FLOAT/N, and says so. Its sample is the
    default number of chunks only: an N given on the command line (n_given) is kept, so
    `make bulk PROFILE=first-contact N=4091` checks every chunk."""
    prof = profile(opts.profile)
    changes = {}
    if prof.float_model and prof.float_model != opts.float_model:
        changes["float_model"] = prof.float_model
    if prof.sample is not None and prof.sample != opts.n and not opts.chunk_ids and not n_given:
        changes["n"] = prof.sample
    for k, v in changes.items():
        # stderr as it is at the call (a default bound at import would be whatever stream was then)
        print(f"profile {prof.name}: {k} = {v} (was {getattr(opts, k)})", file=out if out is not None else sys.stderr)
    return dataclasses.replace(opts, **changes) if changes else opts


def probe_gate(opts, budgets=None, out=sys.stdout):
    """Run the probe when the profile asks for it; True when the bulk may start."""
    if not profile(opts.profile).probe_first:
        return True
    from harness.runners.probing.probe import format_report, probe
    r = probe(opts.image, opts.open_corpus(), opts.float_model, budgets=budgets)
    print(format_report(r), file=out)
    if not r.ready:
        print("the probe says NOT READY: fix the set-up before a bulk (see the ERROR lines)", file=out)
    return r.ready
