"""Random MMI instruction sequences on the Machine agree with the lane-list model, step by step.

Each sequence is compiled into one basic block by the engine, so this checks what single-row
tests cannot: chained HI/LO state (PMADDH after PMTHL.LW after PDIVBW ...), rd aliasing rs or rt
inside a block, writes to r0 (discarded, HI/LO still updated; r5900.md §6), and QFSRV reading an
SA set earlier. Seeds come from --seed and the sequence index.
"""
from __future__ import annotations

import random

import pytest

from tests.machine.cases_mmi import (MODEL_MNEMONICS, diff, edge_value, enc, put_program, run_machine,
                                      run_program)
from tests.machine.mmi_ref import St, ref

REGS = (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
N_SEQUENCES = 100
LENGTH = 24


def random_sequence(rng: random.Random):
    prog = []
    for _ in range(LENGTH):
        mn = rng.choice(MODEL_MNEMONICS)
        prog.append((mn, dict(rd=rng.choice(REGS), rs=rng.choice(REGS), rt=rng.choice(REGS),
                              sa=rng.randrange(32))))
    return prog


def test_random_sequences_match_model(request):
    check_sequences(request.config.getoption("--seed"), N_SEQUENCES)


@pytest.mark.slow
def test_random_sequences_match_model_long(request):
    check_sequences(f"{request.config.getoption('--seed')}:long", 3000)


def check_sequences(seed, count):
    from eemu_ext import Machine
    m = Machine(coverage=True)
    cases = []
    for i in range(count):
        rng = random.Random(f"{seed}:mmi-sequence:{i}")
        st = St({r: edge_value(rng) for r in REGS if r}, hi=edge_value(rng), lo=edge_value(rng),
                sa=rng.randrange(16))
        prog = random_sequence(rng)
        cases.append((st, prog, put_program(m, [enc(mn, **f) for mn, f in prog], sorted(st.gpr), slot=i)))
    m.declare_entries([at for _, _, at in cases])       # one native program for every sequence
    for i, (st, prog, at) in enumerate(cases):
        want = st
        for mn, f in prog:
            want = ref(mn, want, f["rd"], f["rs"], f["rt"], f["sa"])
        got = run_program(m, at, st)
        d = diff(got, want, REGS)
        if d:
            # replay prefix by prefix to name the first instruction that diverges
            state = st
            for k, (mn, f) in enumerate(prog):
                m, g = run_machine([enc(mn2, **f2) for mn2, f2 in prog[:k + 1]], st, m=m,
                                   slot=count + k)
                state = ref(mn, state, f["rd"], f["rs"], f["rt"], f["sa"])
                dd = diff(g, state, REGS)
                if dd:
                    raise AssertionError(f"sequence {i} (seed {seed}) diverges at step {k}: {mn} {f}\n  "
                                         + "\n  ".join(dd))
        assert not d, f"sequence {i} (seed {seed}):\n  " + "\n  ".join(d)
    executed = sum(m.coverage[mn] for mn in MODEL_MNEMONICS)
    assert executed >= count * LENGTH, executed
