"""Provenance of a mismatch and grouping by instruction (harness/provenance.py, reports/origins.py).

On a stand-in mutant whose multiply takes its operands in the other order, the report's top group
names the mutated instruction's address, and the provenance chain of the first mismatch contains
that instruction, marked as the first step whose value the reference never computed. The mutated
address is found by comparing the mutant's disassembly of the function with the stand-in's.
"""
from __future__ import annotations

import os

import pytest

from eemu_ext import Machine
from harness import provenance
from harness.options import DEFAULT_IMAGE, Options
from harness.runners.mutants import find_mutants, run_mutant
from reports.origins import chain_html, groups, headline

MUTANTS = [("swap_interp_operands", "ccAnmCtrlFVec3_Set"), ("swap_scale_operands", "local_matrix")]


def mutated_address(elf, symbol):
    """The first multiply of the mutant's symbol whose disassembly differs from the stand-in's at
    the same address (the mutant may rewrite more of the function around it)."""
    a, b = Machine(), Machine()
    a.load_elf(DEFAULT_IMAGE)
    b.load_elf(elf)
    start = b.symbol(symbol)
    assert a.symbol(symbol) == start, f"{symbol} moved in {elf}"
    for pc in range(start, start + 0x400, 4):
        if a.disasm(pc) != b.disasm(pc) and b.disasm(pc).startswith("mul"):
            return pc
    raise AssertionError(f"{elf}: {symbol} disassembles as the stand-in's")


@pytest.mark.parametrize("name,symbol", MUTANTS)
def test_the_top_group_and_the_first_differing_step_name_the_mutated_instruction(name, symbol):
    mut = find_mutants([name])[0]
    if not os.path.isfile(mut.elf):
        pytest.skip(f"{mut.elf} not built (make mutant-elfs needs the cross compiler)")
    addr = mutated_address(mut.elf, symbol)
    caught, results = run_mutant(mut, Options())
    assert caught
    res = results[-1]
    res["mismatches"] = [m for m in res["mismatches"] if m["check"] == mut.catches]
    from harness.driver.game import Game
    opts = Options()
    ctx = opts.context(res["chunk"])
    ctx.image = mut.elf
    game = Game(mut.elf, opts.float_model)
    traced = provenance.attach(game, opts.open_corpus().chunk(res["chunk"]), ctx, res)
    assert traced == min(provenance.PER_CHUNK, len(res["mismatches"]))
    top = groups([res])[0][0]
    assert top["pc"] == f"0x{addr:08x}" and top["first_differs"], (top, hex(addr))
    assert f"0x{addr:08x}" in headline([res])
    p = res["mismatches"][0]["provenance"]
    assert "error" not in p, p
    marked = [s for s in p["chain"] if s.get("first_differs")]
    assert marked and {s["pc"] for s in marked} == {f"0x{addr:08x}"}
    assert p["chain"][p["first_differs"]]["pc"] == f"0x{addr:08x}"
    step = marked[0]
    assert step["insn"].startswith("mul.s") and step["inputs"] and step["outputs"]
    assert all(v["hex"].startswith("0x") and v["float"] for v in step["inputs"] + step["outputs"])
    assert p["chain"][0]["pc"] != step["pc"]              # the chain starts at the store
    page = chain_html(p)
    assert "first differs from the reference" in page and step["symbol"] in page


def test_when_the_reference_names_every_value_the_step_that_computed_the_stored_word_is_marked(monkeypatch):
    """A reference that computed every value on the chain still stores another word there (the
    mismatch): the nearest computation of the stored word is marked, and the record says why."""
    mut = find_mutants(["swap_interp_operands"])[0]
    if not os.path.isfile(mut.elf):
        pytest.skip(f"{mut.elf} not built (make mutant-elfs needs the cross compiler)")
    caught, results = run_mutant(mut, Options())
    res = results[-1]
    m = next(x for x in res["mismatches"] if x["check"] == "controllers")

    class Everything:
        def __contains__(self, v):
            return True
    monkeypatch.setattr(provenance, "reference_patterns", lambda *a, **k: Everything())
    from harness.driver.game import Game
    opts = Options()
    ctx = opts.context(res["chunk"])
    ctx.image = mut.elf
    p = provenance.provenance(Game(mut.elf), opts.open_corpus().chunk(res["chunk"]), ctx, m)
    marked = [s for s in p["chain"] if s.get("first_differs")]
    assert len(marked) == 1 and p["chain"][p["first_differs"]] is marked[0]
    assert marked[0]["insn"].split()[0].endswith(".s") and "leaf" not in marked[0]
    assert any(o["hex"] == p["word"] for o in marked[0]["outputs"]), "it computed the stored word"
    assert "names every value on this chain" in p["note"] and p["origin"]["first_differs"] is True
