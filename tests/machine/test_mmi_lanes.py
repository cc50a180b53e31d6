"""Property test: each MMI row's sem agrees with the lane-list model on random 128-bit values.

The machine implements the lane-wise ops of r5900.md §6 with whole-int bit tricks; the model in
tests/machine/mmi_ref.py reads the spec's tables lane by lane. Inputs are seeded per mnemonic
(``random.Random(f"{seed}:mmi-lanes:{mnemonic}")``), biased to lane edges (0, ±1, the most
negative and most positive lane values, 0x7F/0x80 bytes), with HI, LO and SA random too, and
every case also runs once with rd aliasing rs and rt (lanes come from the old values, §6).
"""
from __future__ import annotations

import random

import pytest

from tests.machine.cases_mmi import (MODEL_MNEMONICS, A_, B_, D_, diff, model_expect, model_word,
                                     operand_fields, random_state, run_sem)

N_PER_OP = 1500         # x 91 rows: ~136k random states in CI (about 8 s)


@pytest.mark.parametrize("mnemonic", MODEL_MNEMONICS)
def test_sem_matches_lane_model(mnemonic, request):
    seed = request.config.getoption("--seed")
    rng = random.Random(f"{seed}:mmi-lanes:{mnemonic}")
    for i in range(N_PER_OP):
        st = random_state(rng)
        flds = operand_fields(mnemonic, rng)
        if i % 8 == 7:                       # rd = rs = rt: every lane from the old value
            flds = dict(flds, rs=D_, rt=D_)
        elif i % 8 == 6:                     # rd = rt only
            flds = dict(flds, rt=D_)
        elif i % 8 == 5:                     # rd = r0: result discarded, HI/LO still updated
            flds = dict(flds, rd=0)
        word = model_word(mnemonic, flds)
        got = run_sem([word], st)
        want = model_expect(mnemonic, st, flds)
        d = diff(got, want, (A_, B_, D_))
        assert not d, (f"{mnemonic} word {word:#010x} (seed {seed}, case {i}) fields {flds}\n"
                       f"  rs={st.g(flds['rs']):#034x} rt={st.g(flds['rt']):#034x} "
                       f"HI={st.hi:#034x} LO={st.lo:#034x} SA={st.sa}\n  " + "\n  ".join(d))


@pytest.mark.slow
@pytest.mark.parametrize("mnemonic", MODEL_MNEMONICS)
def test_sem_matches_lane_model_long(mnemonic, request):
    seed = request.config.getoption("--seed")
    rng = random.Random(f"{seed}:mmi-lanes-long:{mnemonic}")
    for i in range(20_000):
        st = random_state(rng)
        flds = operand_fields(mnemonic, rng)
        want = model_expect(mnemonic, st, flds)
        got = run_sem([model_word(mnemonic, flds)], st)
        assert not diff(got, want, (A_, B_, D_)), (mnemonic, i, flds)
