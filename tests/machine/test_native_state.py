"""The native engine's machine state is declared once (eemu_ext/engines/native/state.py's FIELDS): the C
struct in csrc/ee_state.h is the table's output, and a compiled library's offset of every field
is held against the ctypes class when the engine loads it, naming the field that moved."""
import pytest

from eemu_ext.errors import EngineError
from eemu_ext.engines.native import build, state
from eemu_ext.engines.native.engine import Program
from eemu_ext.engines.native.translate import PRELUDE_HEADERS

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no host C compiler: no native engine here")


def _program(header: str):
    """A program library of no blocks, built on the given ee_state.h."""
    src = build.runtime_headers()
    src["ee_state.h"] = header
    src["program.c"] = "".join(f'#include "{h}"\n' for h in (*PRELUDE_HEADERS, "runtime.h")) + "".join(
        f"const {t} {name}[] = {{0}};\n" for t, name in (
            ("ee_block_fn", "ee_blocks"), ("uint32_t", "ee_block_n"), ("uint32_t", "ee_block_start"),
            ("uint32_t", "ee_block_end"), ("uint32_t", "ee_block_taken"))) + "const uint32_t ee_nblocks = 0;\n"
    return build.shared_library("state-check", src, flags=("-DEE_MODEL_HW=1",))


def _perturbed(name: str, **change) -> str:
    """ee_state.h from the table with one field changed (the ctypes class keeps the table's)."""
    return state.c_header(tuple(f._replace(**change) if f.name == name else f for f in state.FIELDS))


def test_the_committed_ee_state_h_is_the_tables_output():
    with open(state.HEADER, encoding="utf-8") as f:
        assert f.read() == state.c_header(), "run python -m eemu_ext.engines.native.state"


def test_the_engine_checks_every_field_offset_of_the_compiled_state_at_load():
    Program(_program(state.c_header()), 0, 0, "state-check")     # no error: the layouts agree


@pytest.mark.parametrize("name, change, moved", [
    ("cop0", {"count": 31}, "cmsar0"),                 # a field one word short: the next one moves
    ("data_floor", {"ctype": "uint64_t"}, "pc"),       # a field of another width
])
def test_a_field_at_another_offset_in_the_c_is_named_when_the_engine_loads_it(name, change, moved):
    with pytest.raises(EngineError, match=rf"ee_state\.{moved} is at offset \d+ in the compiled C, "
                                          rf"at {state.OFFSETS[moved]} in the ctypes class"):
        Program(_program(_perturbed(name, **change)), 0, 0, "state-check")


def test_a_struct_run_of_the_engine_holds_registers_only():
    assert state.run_format("HI", "LO").format == "<2Q2Q"
    with pytest.raises(ValueError, match="ram is a pointer"):
        state.run_format("vi24", "ram")


def test_lockstep_names_one_register_word_per_struct_item():
    from eemu_ext.engines.native.lockstep import NAMES
    regs, scal = state.run_format("R", "VI"), state.run_format("acc_ovf", "vi24")
    assert len(NAMES) == len(regs.unpack(bytes(regs.size))) + len(scal.unpack(bytes(scal.size)))
    assert NAMES[:2] == ["R[0]", "R[1]"] and "VF[31].w" in NAMES and "ACC.x" in NAMES and NAMES[-1] == "vi24"
