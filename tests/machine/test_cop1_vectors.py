"""The hardware vectors run through the machine as COP1 instructions.

Every vector of docs/spec/vectors/ee-fpu-hw.txt (636 results recorded
on a real PS2) passes under hw when executed as instruction words (operands loaded with LUI/ORI/MTC1,
ACC set with ADDA.S x, -0 and read back with MADD.S fd, -0, +0 as the file's header says, results
stored with SWC1); every row of ee-float.md §5 passes in its hw and trunc columns; the pure
functions of eemu_ext.eefloat agree with the same vectors.
"""
from __future__ import annotations

import pytest

from eemu_ext import eefloat
from tests.machine.cases_fpu import (TABLE5, parse_vectors, run_vectors, table5_vectors,
                                     vector_result)

VECTORS = parse_vectors()


def test_vector_file_has_636_cases():
    assert len(VECTORS) == 636


def test_all_636_hardware_vectors_as_instructions():
    """ee-float.md §5 footnote: the hw model reproduces all 636 recorded COP1 vectors."""
    m = run_vectors(VECTORS, "hw")
    assert m.coverage["madd.s"] > 0 and m.coverage["swc1"] == 636


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_table5_as_instructions(model):
    """ee-float.md §5: the COP1 rows of the vector table, in the model's own column."""
    run_vectors(table5_vectors(model), model)


def test_table5_rows_differ_between_models_where_the_spec_says():
    """§5: rows 4-7, 9, 11, 13, 16, 17, 19, 22-25, 28, 31, 33, 35 separate hw from trunc."""
    separating = {k + 1 for k, (_, _, hw, tr) in enumerate(TABLE5) if tr is not None and hw != tr}
    assert separating == {4, 5, 6, 7, 9, 11, 13, 16, 17, 19, 22, 23, 24, 25, 28, 31, 33, 35}


def test_all_636_hardware_vectors_pure_functions():
    bad = [(no, op, args, hex(want)) for no, op, args, want in VECTORS
           if vector_result(eefloat.HW, op, args) != want]
    assert not bad, bad[:10]


def test_vector_check_can_fail():
    """A wrong expected value is reported with its file line (the runner is not vacuous)."""
    no, op, args, want = VECTORS[20]
    with pytest.raises(AssertionError, match="ee-fpu-hw.txt"):
        run_vectors([(no, op, args, want ^ 1)], "hw")
