"""A deliberately simple, lane-list model of every MMI instruction, written only for the tests.

It transcribes r5900.md §5.3 and §6 table by table (lists of lanes, plain Python ints, no bit
tricks) so that the machine's SWAR implementation in eemu_ext/isa/mmi.py can be checked against
an independent reading of the spec. ``ref(mnemonic, st, rd, rs, rt, sa)`` returns the new state.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Dict


@dataclass
class St:
    """The state an MMI instruction sees: 128-bit GPRs, 128-bit HI and LO, the SA register."""
    gpr: Dict[int, int] = field(default_factory=dict)
    hi: int = 0
    lo: int = 0
    sa: int = 0

    def g(self, r: int) -> int:
        return 0 if r == 0 else self.gpr.get(r, 0)

    def copy(self) -> "St":
        return St(dict(self.gpr), self.hi, self.lo, self.sa)


def lanes(v: int, n: int) -> list:
    return [(v >> (i * n)) & ((1 << n) - 1) for i in range(128 // n)]


def join(ls, n: int) -> int:
    out = 0
    for i, x in enumerate(ls):
        out |= (x & ((1 << n) - 1)) << (i * n)
    return out


def sgn(x: int, n: int) -> int:
    x &= (1 << n) - 1
    return x - (1 << n) if x >> (n - 1) else x


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def _lanewise(fn, n, a, b):
    return join([fn(x, y) for x, y in zip(lanes(a, n), lanes(b, n))], n)


def _smin(n):
    return -(1 << (n - 1))


def _smax(n):
    return (1 << (n - 1)) - 1


# §6.1: (lane size, f(x, y)) with x from rs and y from rt, both unsigned lane values
def _binary_table():
    t = {}
    for suf, n in (("b", 8), ("h", 16), ("w", 32)):
        t["padd" + suf] = (n, lambda x, y: x + y)
        t["psub" + suf] = (n, lambda x, y: x - y)
        t["padds" + suf] = (n, lambda x, y, n=n: clamp(sgn(x, n) + sgn(y, n), _smin(n), _smax(n)))
        t["psubs" + suf] = (n, lambda x, y, n=n: clamp(sgn(x, n) - sgn(y, n), _smin(n), _smax(n)))
        t["paddu" + suf] = (n, lambda x, y, n=n: min(x + y, (1 << n) - 1))
        t["psubu" + suf] = (n, lambda x, y: max(x - y, 0))
        t["pcgt" + suf] = (n, lambda x, y, n=n: -1 if sgn(x, n) > sgn(y, n) else 0)
        t["pceq" + suf] = (n, lambda x, y: -1 if x == y else 0)
    for suf, n in (("h", 16), ("w", 32)):
        t["pmax" + suf] = (n, lambda x, y, n=n: x if sgn(x, n) > sgn(y, n) else y)
        t["pmin" + suf] = (n, lambda x, y, n=n: x if sgn(x, n) < sgn(y, n) else y)
    return t


BINARY = _binary_table()
BINARY = {k: v for k, v in BINARY.items() if k not in ("pmaxb", "pminb")}

# §6.3, transcribed: result lanes, lane 0 first; "t3" = lane 3 of rt, "s0" = lane 0 of rs.
SHUFFLE = {
    "pextlw": (32, "t0 s0 t1 s1"),
    "pextuw": (32, "t2 s2 t3 s3"),
    "pextlh": (16, "t0 s0 t1 s1 t2 s2 t3 s3"),
    "pextuh": (16, "t4 s4 t5 s5 t6 s6 t7 s7"),
    "pextlb": (8, " ".join(f"t{i} s{i}" for i in range(8))),
    "pextub": (8, " ".join(f"t{i} s{i}" for i in range(8, 16))),
    "ppacw": (32, "t0 t2 s0 s2"),
    "ppach": (16, "t0 t2 t4 t6 s0 s2 s4 s6"),
    "ppacb": (8, " ".join(f"t{i}" for i in range(0, 16, 2)) + " " + " ".join(f"s{i}" for i in range(0, 16, 2))),
    "pinth": (16, "t0 s4 t1 s5 t2 s6 t3 s7"),
    "pinteh": (16, "t0 s0 t2 s2 t4 s4 t6 s6"),
    "pcpyld": (64, "t0 s0"),
    "pcpyud": (64, "s1 t1"),
    "pcpyh": (16, "t0 t0 t0 t0 t4 t4 t4 t4"),
    "pexeh": (16, "t2 t1 t0 t3 t6 t5 t4 t7"),
    "prevh": (16, "t3 t2 t1 t0 t7 t6 t5 t4"),
    "pexch": (16, "t0 t2 t1 t3 t4 t6 t5 t7"),
    "pexew": (32, "t2 t1 t0 t3"),
    "pexcw": (32, "t0 t2 t1 t3"),
    "prot3w": (32, "t1 t2 t0 t3"),
}


def _shuffle(spec, a, b):
    n, order = spec
    src = {"s": lanes(a, n), "t": lanes(b, n)}
    return join([src[tok[0]][int(tok[1:])] for tok in order.split()], n)


def _div(a: int, b: int):
    """DIV's rule (r5900.md §5.1), signed: (quotient, remainder)."""
    if b == 0:
        return (1 if a < 0 else -1), a
    if a == -2**31 and b == -1:
        return -2**31, 0
    q = int(Fraction(a, b))                     # int() of a Fraction truncates toward zero
    return q, a - q * b


def _sx32(x: int) -> int:
    return sgn(x, 32) & (2**64 - 1)


def _lzc(w: int) -> int:
    bit = w >> 31
    count = 0
    for i in range(31, -1, -1):
        if (w >> i) & 1 != bit:
            break
        count += 1
    return count - 1


def ref(mn: str, st: St, rd: int = 0, rs: int = 0, rt: int = 0, sa: int = 0) -> St:
    """The state after one MMI instruction, computed lane by lane from the spec's tables."""
    a, b = st.g(rs), st.g(rt)
    out = st.copy()
    res = None
    HIw, LOw = lanes(st.hi, 32), lanes(st.lo, 32)
    if mn in BINARY:
        n, fn = BINARY[mn]
        res = _lanewise(fn, n, a, b)
    elif mn == "padsbh":
        x, y = lanes(a, 16), lanes(b, 16)
        res = join([x[i] - y[i] if i < 4 else x[i] + y[i] for i in range(8)], 16)
    elif mn in ("pabsh", "pabsw"):
        n = 16 if mn == "pabsh" else 32
        res = join([min(abs(sgn(y, n)), _smax(n)) for y in lanes(b, n)], n)
    elif mn == "pand":
        res = a & b
    elif mn == "por":
        res = a | b
    elif mn == "pxor":
        res = a ^ b
    elif mn == "pnor":
        res = ~(a | b) & (2**128 - 1)
    elif mn in SHUFFLE:
        res = _shuffle(SHUFFLE[mn], a, b)
    elif mn == "pext5":
        res = join([((v & 0x1F) << 3) | ((v & 0x3E0) << 6) | ((v & 0x7C00) << 9) | ((v & 0x8000) << 16)
                    for v in lanes(b, 32)], 32)
    elif mn == "ppac5":
        res = join([((v >> 3) & 0x1F) | ((v >> 6) & 0x3E0) | ((v >> 9) & 0x7C00) | ((v >> 16) & 0x8000)
                    for v in lanes(b, 32)], 32)
    elif mn in ("psllh", "psrlh", "psrah", "psllw", "psrlw", "psraw"):
        n = 16 if mn[-1] == "h" else 32
        s = sa & 15 if n == 16 else sa
        kind = mn[1:4]
        res = join([(y << s) if kind == "sll" else (y >> s) if kind == "srl" else (sgn(y, n) >> s)
                    for y in lanes(b, n)], n)
    elif mn in ("psllvw", "psrlvw", "psravw"):
        tw, sw = lanes(b, 32), lanes(a, 32)
        dws = []
        for k in (0, 1):
            v, s = tw[2 * k], sw[2 * k] & 31
            r = (v << s) if mn == "psllvw" else (v >> s) if mn == "psrlvw" else (sgn(v, 32) >> s)
            dws.append(_sx32(r))
        res = join(dws, 64)
    elif mn == "plzcw":
        w = lanes(a, 32)
        old = lanes(st.g(rd), 32)
        res = join([_lzc(w[0]), _lzc(w[1]), old[2], old[3]], 32)
    elif mn == "qfsrv":
        cat = lanes(b, 8) + lanes(a, 8)          # rt bytes first (least significant), then rs
        res = join([cat[i + st.sa] for i in range(16)], 8)
    elif mn in ("pmfhi", "pmflo"):
        res = st.hi if mn == "pmfhi" else st.lo
    elif mn in ("pmthi", "pmtlo"):
        if mn == "pmthi":
            out.hi = a
        else:
            out.lo = a
    elif mn in ("pmulth", "pmaddh", "pmsubh", "phmadh", "phmsbh"):
        p = [sgn(x, 16) * sgn(y, 16) for x, y in zip(lanes(a, 16), lanes(b, 16))]
        slots = [("L", 0), ("L", 1), ("H", 0), ("H", 1), ("L", 2), ("L", 3), ("H", 2), ("H", 3)]
        if mn.startswith("ph"):
            vals = []
            for j in range(4):
                if mn == "phmadh":
                    vals += [p[2 * j + 1] + p[2 * j], p[2 * j + 1]]
                else:
                    vals += [p[2 * j + 1] - p[2 * j], ~p[2 * j + 1]]
        else:
            vals = []
            for i, (which, k) in enumerate(slots):
                old = (LOw if which == "L" else HIw)[k]
                vals.append(p[i] if mn == "pmulth" else old + p[i] if mn == "pmaddh" else old - p[i])
        for (which, k), v in zip(slots, vals):
            (LOw if which == "L" else HIw)[k] = v & 0xFFFFFFFF
        out.lo, out.hi = join(LOw, 32), join(HIw, 32)
        res = join([LOw[0], HIw[0], LOw[2], HIw[2]], 32)
    elif mn in ("pmultw", "pmultuw", "pmaddw", "pmadduw", "pmsubw"):
        signed = mn not in ("pmultuw", "pmadduw")
        xs, ys = lanes(a, 32), lanes(b, 32)
        dws, his, los = [], [], []
        for k in (0, 1):
            x, y = xs[2 * k], ys[2 * k]
            p = sgn(x, 32) * sgn(y, 32) if signed else x * y
            acc = (HIw[2 * k] << 32) + LOw[2 * k]
            if mn.startswith("pmadd"):
                p = acc + p
            elif mn == "pmsubw":
                p = acc - p
            p &= 2**64 - 1
            dws.append(p)
            los.append(_sx32(p))
            his.append(_sx32(p >> 32))
        out.lo, out.hi, res = join(los, 64), join(his, 64), join(dws, 64)
    elif mn in ("pdivw", "pdivuw"):
        xs, ys = lanes(a, 32), lanes(b, 32)
        los, his = [], []
        for k in (0, 1):
            x, y = xs[2 * k], ys[2 * k]
            if mn == "pdivw":
                q, r = _div(sgn(x, 32), sgn(y, 32))
            else:
                q, r = (0xFFFFFFFF, x) if y == 0 else (x // y, x % y)
            los.append(_sx32(q))
            his.append(_sx32(r))
        out.lo, out.hi = join(los, 64), join(his, 64)
    elif mn == "pdivbw":
        d = sgn(b, 16)
        qs, rs_ = [], []
        for v in lanes(a, 32):
            v = sgn(v, 32)
            if d == 0:
                q, r = (1 if v < 0 else 0xFFFFFFFF), v
            elif v == -2**31 and d == -1:
                q, r = 0x80000000, 0
            else:
                q = int(Fraction(v, d))
                r = v - q * d
            qs.append(q)
            rs_.append(r)
        out.lo, out.hi = join(qs, 32), join(rs_, 32)
    elif mn.startswith("pmfhl."):
        kind = mn.split(".")[1]
        if kind == "lw":
            res = join([LOw[0], HIw[0], LOw[2], HIw[2]], 32)
        elif kind == "uw":
            res = join([LOw[1], HIw[1], LOw[3], HIw[3]], 32)
        elif kind == "slw":
            res = join([clamp(sgn((HIw[2 * k] << 32) + LOw[2 * k], 64), -2**31, 2**31 - 1)
                        for k in (0, 1)], 64)
        elif kind == "lh":
            LOh, HIh = lanes(st.lo, 16), lanes(st.hi, 16)
            res = join([LOh[0], LOh[2], HIh[0], HIh[2], LOh[4], LOh[6], HIh[4], HIh[6]], 16)
        elif kind == "sh":
            ws = [LOw[0], LOw[1], HIw[0], HIw[1], LOw[2], LOw[3], HIw[2], HIw[3]]
            res = join([clamp(sgn(w, 32), -0x8000, 0x7FFF) for w in ws], 16)
    elif mn == "pmthl.lw":
        w = lanes(a, 32)
        LOw[0], HIw[0], LOw[2], HIw[2] = w[0], w[1], w[2], w[3]
        out.lo, out.hi = join(LOw, 32), join(HIw, 32)
    else:
        raise KeyError(f"mmi_ref has no model for {mn!r}")
    if res is not None and rd != 0:
        out.gpr[rd] = res
    return out
