"""A plain state model of COP1 and VU0 macro instructions, restated from the spec for the tests.

``Cop1State`` and ``Vu0State`` hold the architectural state as lists of u32; ``step(mnemonic,
fields)`` applies one instruction (ee-float.md §3.6, §3.9, §3.10; r5900.md §8.2) using the simple
float operations of floatcheck.simple. Nothing here is shared with eemu_ext.
"""
from __future__ import annotations

from .simple import ops

LANES = "xyzw"


# ---------------------------------------------------------------------------------------------
# COP1
# ---------------------------------------------------------------------------------------------

U, O, D, I = 1 << 14, 1 << 15, 1 << 16, 1 << 17
SU, SO, SD, SI = 1 << 3, 1 << 4, 1 << 5, 1 << 6
C = 1 << 23


class Cop1State:
    def __init__(self, model: str, f=None, acc=0, latch=False, fcr31=0x01000001):
        self.model = model
        self.m = ops(model)
        self.f = list(f) if f else [0] * 32
        self.acc, self.latch, self.fcr31 = acc, latch, fcr31

    def _arith(self, fl, madda=False):
        """§3.9's table, restated, for ADD/SUB/MUL/ADDA/SUBA/MULA, MADD/MSUB and MADDA/MSUBA."""
        if self.model != "hw":
            return
        x = self.fcr31
        if "O" in fl:
            x |= O | SO
        elif madda:
            x &= ~O
            if "U" in fl:
                x |= SU
        elif "U" in fl:
            x = (x & ~O) | U | SU
        else:
            x &= ~(O | U)
        if "PU" in fl:
            x |= SU
        self.fcr31 = x

    def step(self, mn: str, fd=0, fs=0, ft=0):
        m, f = self.m, self.f
        hw = self.model == "hw"
        if mn in ("add.s", "sub.s", "mul.s"):
            r, fl = {"add.s": m.add, "sub.s": m.sub, "mul.s": m.mul}[mn](f[fs], f[ft])
            f[fd] = r
            self._arith(fl)
        elif mn in ("adda.s", "suba.s", "mula.s"):
            r, fl = {"adda.s": m.add, "suba.s": m.sub, "mula.s": m.mul}[mn](f[fs], f[ft])
            self.acc, self.latch = r, hw and "O" in fl
            self._arith(fl)
        elif mn in ("madd.s", "msub.s", "madda.s", "msuba.s"):
            fn = m.madd if mn.startswith("madd") else m.msub
            r, fl = fn(self.acc, f[fs], f[ft], self.latch)
            if mn.endswith("a.s"):
                self.acc, self.latch = r, hw and "O" in fl
                self._arith(fl, madda=True)
            else:
                f[fd] = r
                self._arith(fl)
        elif mn == "div.s":
            r, fl = m.div(f[fs], f[ft])
            f[fd] = r
            if hw:
                if "D" in fl:
                    self.fcr31 |= D | SD
                if "I" in fl:
                    self.fcr31 |= I | SI
        elif mn in ("sqrt.s", "rsqrt.s"):
            r, fl = m.sqrt(f[ft]) if mn == "sqrt.s" else m.rsqrt(f[fs], f[ft])
            f[fd] = r
            if hw:
                self.fcr31 &= ~(D | I)
                if "D" in fl:
                    self.fcr31 |= D | SD
                if "I" in fl:
                    self.fcr31 |= I | SI
        elif mn in ("abs.s", "neg.s", "max.s", "min.s"):
            if mn == "abs.s":
                f[fd] = f[fs] & 0x7FFFFFFF
            elif mn == "neg.s":
                f[fd] = f[fs] ^ 0x80000000
            else:
                f[fd] = (m.fmax if mn == "max.s" else m.fmin)(f[fs], f[ft])[0]
            self.fcr31 &= ~(O | U)
        elif mn == "mov.s":
            f[fd] = f[fs]
        elif mn == "cvt.s.w":
            f[fd] = m.from_int(f[fs])[0]
        elif mn == "cvt.w.s":
            f[fd] = m.to_int(f[fs])[0]
        elif mn.startswith("c."):
            from .simple import cmp_value
            c = cmp_value(f[fs], f[ft])
            hold = {"c.f.s": False, "c.eq.s": c == 0, "c.lt.s": c < 0, "c.le.s": c <= 0}[mn]
            self.fcr31 = (self.fcr31 | C) if hold else (self.fcr31 & ~C)
        else:
            raise ValueError(mn)


# ---------------------------------------------------------------------------------------------
# VU0
# ---------------------------------------------------------------------------------------------

def _nibble(bits, fl):
    s = 2 if bits >> 31 else 0
    if "U" in fl:
        return s | 5
    if (bits >> 23) & 255 == 0:
        return s | 1
    if "O" in fl:
        return s | 8
    return s


class Vu0State:
    def __init__(self, model: str):
        self.model = model
        self.m = ops(model)
        self.vf = [[0, 0, 0, 0] for _ in range(32)]
        self.vf[0] = [0, 0, 0, 0x3F800000]
        self.acc = [0, 0, 0, 0]
        self.mac = self.status = self.clip = self.q = self.i = 0

    def _flags(self, nibbles):
        if self.model != "hw":
            return
        mac = 0
        for c, n in enumerate(nibbles):
            if n is not None:
                for k in range(4):
                    if n >> k & 1:
                        mac |= 1 << (4 * k + 3 - c)
        low = sum(1 << k for k in range(4) if mac >> (4 * k) & 0xF)
        self.mac = mac
        self.status = (self.status & 0xFF0) | low | (low << 6)

    def _write(self, reg, vals, dest):
        if reg == 0:
            return
        for c in range(4):
            if dest & (8 >> c):
                self.vf[reg][c] = vals[c]

    def step(self, mn: str, dest=0xF, fd=0, fs=0, ft=0, fsf=0, ftf=0):
        m, vf = self.m, self.vf
        a = list(vf[fs])
        b_vec = list(vf[ft])
        name = mn[1:]
        if mn in ("vopmula", "vopmsub"):
            pairs = [(a[1], b_vec[2]), (a[2], b_vec[0]), (a[0], b_vec[1])]
            out, nib = list(self.acc) if mn == "vopmula" else list(vf[fd]), [None] * 4
            for c, (x, y) in enumerate(pairs):
                r, fl = m.mul(x, y) if mn == "vopmula" else m.msub(self.acc[c], x, y, False)
                out[c], nib[c] = r, _nibble(r, fl)
            if mn == "vopmula":
                self.acc = out
            else:
                self._write(fd, out, 0xE)
            self._flags(nib)
            return
        for k in ("madd", "msub", "add", "sub", "mul", "max", "mini"):
            if name.startswith(k):
                rest = name[len(k):]
                target = "fd"
                if k not in ("max", "mini") and rest.startswith("a"):
                    target, rest = "acc", rest[1:]
                if rest in ("x", "y", "z", "w"):
                    b = [b_vec[LANES.index(rest)]] * 4
                elif rest == "i":
                    b = [self.i] * 4
                elif rest == "q":
                    b = [self.q] * 4
                else:
                    b = b_vec
                out = list(self.acc) if target == "acc" else list(vf[fd])
                nib = [None] * 4
                for c in range(4):
                    if not dest & (8 >> c):
                        continue
                    if k in ("max", "mini"):
                        out[c] = (m.fmax if k == "max" else m.fmin)(a[c], b[c])[0]
                        continue
                    if k in ("madd", "msub"):
                        latch = target == "acc" and self.model == "hw" and bool(self.mac >> (15 - c) & 1)
                        r, fl = getattr(m, k)(self.acc[c], a[c], b[c], latch)
                    else:
                        r, fl = getattr(m, k)(a[c], b[c])
                    out[c], nib[c] = r, _nibble(r, fl)
                if target == "acc":
                    self.acc = out
                else:
                    self._write(fd, out, 0xF)
                if k not in ("max", "mini"):
                    self._flags(nib)
                return
        if name[:4] in ("itof", "ftoi"):
            n = int(name[4:])
            f = m.itof if name.startswith("itof") else m.ftoi
            self._write(ft, [f(x, n)[0] for x in a], dest)
        elif mn == "vmove":
            self._write(ft, a, dest)
        elif mn == "vmr32":
            self._write(ft, a[1:] + a[:1], dest)
        elif mn == "vabs":
            self._write(ft, [x & 0x7FFFFFFF for x in a], dest)
        elif mn == "vclipw":
            from tests.machine.cases_fpu import clip_ref
            self.clip = ((self.clip << 6) | clip_ref(a, b_vec[3])) & 0xFFFFFF
        elif mn in ("vdiv", "vsqrt", "vrsqrt"):
            if mn == "vdiv":
                q, fl = m.div(a[fsf], b_vec[ftf])
            elif mn == "vsqrt":
                q, fl = m.sqrt(b_vec[ftf])
            else:
                q, fl = m.vrsqrt(a[fsf], b_vec[ftf])
            self.q = q
            if self.model == "hw":
                st = self.status & ~0x30
                if "I" in fl:
                    st |= 0x410
                if "D" in fl:
                    st |= 0x820
                self.status = st
        else:
            raise ValueError(mn)
