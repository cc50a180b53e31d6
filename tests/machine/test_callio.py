"""Machine.call_each(..., io=CallIO): a batch's work between its calls described as data (writes,
byte masks, gathered words, the words a tap's pointer names, the guard) gives what the same calls
made one by one give with that work done by hand after each, in every engine; the native engine
does it in C (eemu_ext/core/callio.py, runtime.h ee_call_batch)."""
import pytest

from eemu_ext import CallIO, Machine, MemoryFault
from eemu_ext.core.testing import CODE_BASE as B, program, put_words

TAP, HOOK, DATA = B + 0x200, B + 0x240, 0x00300000
# f(ptr, k): *(ptr + 4) = k; v0 = *ptr; tap(ptr, k); tap(ptr + 16, k); h(); return v0
F = ["addiu sp, sp, -16", "sw ra, 0(sp)", "sw v0, 4(sp)", "sw a1, 4(a0)", "lw v0, 0(a0)", "sw v0, 4(sp)",
     f"jal 0x{TAP:x}", "nop", f"jal 0x{TAP:x}", "addiu a0, a0, 16", f"jal 0x{HOOK:x}", "nop",
     "lw v0, 4(sp)", "lw ra, 0(sp)", "jr ra", "addiu sp, sp, 16"]
CALLS = [(DATA + 32 * (i % 3), 0x1000 + i) for i in range(9)]
MASKED = [DATA + 8, DATA + 9, DATA + 40]


class Broke(Exception):
    """What a guard's check raises: the caller's own error, passed through as it is."""
    _eemu_passthrough = True


def machine(hooked):
    m = Machine()
    put_words(m, B, program(F))
    put_words(m, TAP, program(["jr ra", "nop"]))
    put_words(m, HOOK, program(["jr ra", "addiu v1, zero, 1"]))
    m.declare_entries([B])
    m.write(DATA, bytes(range(1, 129)))
    tap = m.hooks.add("tap", addr=TAP)
    if hooked:                                  # a Python hook in every call: the batch leaves C
        m.hooks.add("address", lambda mm: 7, HOOK)
    return m, tap


def io_for(tap, period=2):
    io = CallIO(period)
    io.gather(0, [DATA, DATA + 4])
    io.and_bytes(0, MASKED, 0x0F)
    io.gather_taps(1, tap, regs=(0, 1), arg=0, offset=4, n=2)
    io.write(1, DATA, b"\x11\x22\x33\x44")
    return io


def by_hand(hooked):
    """The calls one by one, the same work done after each with plain reads and writes."""
    m, tap = machine(hooked)
    out, gathered, tapped, counts = [], [], [], [0] * len(CALLS)
    for i, args in enumerate(CALLS):
        mark = len(tap.calls)                   # the call's own taps follow
        out.append((m.call(B, *args), m.steps))
        if i % 2 == 0:
            gathered += [m.read_u32(DATA), m.read_u32(DATA + 4)]
            for a in MASKED:
                m.write_u8(a, m.read_u8(a) & 0x0F)
        else:
            for row in tap.calls[mark:]:
                tapped += [row[0], row[1], m.read_u32(row[0] + 4), m.read_u32(row[0] + 8)]
            counts[i] = len(tap.calls) - mark
            del tap.calls[mark:]
            m.write(DATA, b"\x11\x22\x33\x44")
    return out, gathered, tapped, counts, tap.calls, m.read(DATA, 128)


@pytest.mark.parametrize("hooked", [False, True], ids=["in C", "leaving C"])
def test_a_batch_with_io_gives_the_calls_one_by_one_with_the_work_done_by_hand(hooked):
    want = by_hand(hooked)
    m, tap = machine(hooked)
    io = io_for(tap)
    out = m.call_each(B, CALLS, io=io)
    got = (out, io.gathered.tolist(), io.tapped.tolist(), io.tap_counts.tolist(), tap.calls, m.read(DATA, 128))
    assert got == want and io.returned == [v0 for v0, _ in want[0]]
    assert want[3] == [0, 2] * 4 + [0] and len(want[2]) == 4 * 2 * 4 and len(want[4]) == 2 * 5   # the even calls' taps stay
    assert m.read_u8(DATA + 8) == 9 & 0x0F and m.read(DATA, 4) == b"\x11\x22\x33\x44"


def test_the_guard_calls_its_check_for_every_call_that_does_not_pass_it_and_a_check_that_raises_stops_the_batch(engine):
    m, tap = machine(False)
    io = io_for(tap)
    seen = []
    io.guard({16: 0, 17: 0}, [((DATA >> 12) + 1, (DATA >> 12) + 2)], seen.append)
    m.call_each(B, CALLS, io=io)
    # the native engine checks the registers and pages itself: nothing changed, no call back
    assert seen == ([] if engine == "native" else list(range(len(CALLS))))

    def check(i):
        seen.append(i)
        if i == 3:
            raise Broke("call 3 broke the contract")
    m2, tap2 = machine(False)
    io2 = io_for(tap2)
    io2.guard({16: 1}, [], check)                    # s0 is 0 after every call: every call is checked
    seen = []
    with pytest.raises(Broke, match="call 3"):
        m2.call_each(B, CALLS, io=io2)
    assert seen == [0, 1, 2, 3] and io2.returned == [v0 for v0, _ in by_hand(False)[0][:3]]
    assert m2.read_u32(DATA + 4 + 32) == CALLS[1][1] and m2.read_u32(DATA + 4 + 64) == CALLS[2][1]
    assert m2.read_u32(DATA + 4) == CALLS[3][1]          # call 3 ran, call 6 did not


@pytest.mark.parametrize("hooked", [False, True], ids=["in C", "leaving C"])
def test_a_call_that_raises_stops_the_batch_and_its_outputs_are_those_of_the_calls_before_it(hooked):
    """A call that faults (a store outside RAM) raises out of the batch; io then holds what a batch
    of the calls before it gives: their v0s (io.returned), gathered and tapped words, tap counts."""
    m, tap = machine(hooked)
    io = io_for(tap)
    with pytest.raises(MemoryFault):
        m.call_each(B, CALLS[:5] + [(0x04000000, 0x2000)] + CALLS[6:], io=io)
    m2, tap2 = machine(hooked)
    io2 = io_for(tap2)
    before = m2.call_each(B, CALLS[:5], io=io2)
    assert io.returned == [v0 for v0, _ in before] and len(io.returned) == 5
    assert io.gathered.tolist() == io2.gathered.tolist() and io.tapped.tolist() == io2.tapped.tolist()
    assert io.tap_counts.tolist() == io2.tap_counts.tolist() + [0] * 4


def test_a_callio_refuses_addresses_outside_ram_and_a_phase_beyond_its_period():
    io = CallIO(2)
    with pytest.raises(ValueError, match="0x02000000 is not in RAM"):
        io.write(0, 0x02000000, b"\0")
    with pytest.raises(ValueError, match="not aligned"):
        io.gather(1, [DATA + 2])
    with pytest.raises(ValueError, match="phase 2 is not below the period 2"):
        io.and_bytes(2, [DATA], 0)
