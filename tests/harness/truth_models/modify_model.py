"""A model of the modify queries, written from docs/truth.md §3.1 alone: nothing of eediff imported.

    python tests/harness/truth_models/modify_model.py [--wrong]
    .venv/bin/python -m harness check-truth FILE --check morph --model 'python3 tests/harness/truth_models/modify_model.py'

A modify query carries every input (base, base_scale, targets), so the chunk's bytes are not read.
Each target is rescaled when its scale differs from the base's (f_div, f_mul, f_to_int of the
request's float model), its weight becomes three s16 lanes, and the vertices are blended with
16-bit wrapping differences, a 32-bit sum, an arithmetic shift by 12 and a saturating add.
--wrong adds 1 to the x of the first vertex of each chunk's first query: a deliberately wrong
model, which check-truth must catch.
"""
import json
import sys

M32 = 0xFFFFFFFF
FMAX = 0x7FFFFFFF
F4096 = 0x45800000


def s16(v):
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def s32(v):
    v &= M32
    return v - 0x100000000 if v & 0x80000000 else v


def fields(w):
    """(S, E, M) of a word: M carries the hidden bit."""
    return w >> 31, (w >> 23) & 0xFF, (w & 0x7FFFFF) | 0x800000


def truncated(sign, n, exp2):
    """The word of sign * n * 2^exp2, truncated toward zero to 24 bits, saturating (ee-float.md §2.1)."""
    if n == 0:
        return sign << 31
    length = n.bit_length()
    m = n >> (length - 24) if length > 24 else n << (24 - length)
    e = exp2 + length - 24 + 150
    if e > 255:
        return (sign << 31) | FMAX
    if e < 1:
        return sign << 31
    return (sign << 31) | (e << 23) | (m & 0x7FFFFF)


def from_int(i):
    """f_from_int: the signed 32-bit value, its magnitude truncated to 24 significant bits."""
    i = s32(i)
    return truncated(1 if i < 0 else 0, abs(i), 0)


def to_int(w):
    """f_to_int: toward zero, saturating; E = 0 gives 0. A u32 pattern."""
    s, e, m = fields(w)
    if e == 0:
        return 0
    if e >= 158:
        return 0x80000000 if s else 0x7FFFFFFF
    v = m << (e - 150) if e >= 150 else m >> (150 - e)
    return (-v if s else v) & M32


def cmp(a, b):
    """f_cmp: -1, 0 or 1 on the exact values; every E = 0 pattern is zero."""
    def value(w):
        s, e, m = fields(w)
        return 0 if e == 0 else (-1 if s else 1) * m * 2.0 ** (e - 150)   # exact: 24 bits, e in range
    va, vb = value(a), value(b)
    return (va > vb) - (va < vb)


def csa(x, y, z):
    return x ^ y ^ z, (((x & y) | (x & z) | (y & z)) << 1) & M32


def booth(a, b):
    """The hw multiplier's significand product of A = M(fs) and B = M(ft) (ee-float.md §3.3)."""
    p = a * b
    pp, n = [], []
    for k in range(8):
        lo = (b >> (2 * k - 1)) & 1 if k else 0
        w = 4 * ((b >> (2 * k + 1)) & 1) + 2 * ((b >> (2 * k)) & 1) + lo
        kk = (M32 << (2 * k)) & M32
        if w in (0, 7):
            pp.append(0), n.append(0)
        elif w in (1, 2):
            pp.append((a << (2 * k)) & M32), n.append(0)
        elif w == 3:
            pp.append((a << (2 * k + 1)) & M32), n.append(0)
        elif w == 4:
            pp.append(((a << (2 * k + 1)) & M32) ^ kk), n.append(1 << (2 * k))
        else:
            pp.append(((a << (2 * k)) & M32) ^ kk), n.append(1 << (2 * k))
    s0, c0 = csa(pp[1], pp[2], pp[3])
    s1, c1 = csa(pp[4] & 0xFFFFF800, pp[5] & 0xFFFFF000, pp[6])
    c1 = c1 | n[6] | (pp[5] & 0x800)
    q7 = (pp[7] | ((pp[5] & 0x400) + n[5])) & M32
    s2, c2 = csa(pp[0], s0, c0)
    s3, c3 = csa(q7, s1, c1)
    s4, c4 = csa(c2, s3, c3)
    s5, c5 = csa(s2, s4, c4)
    c5 = (c5 + n[7]) & M32
    low = ((s5 & 0xFFFF8000) + (c5 & 0xFFFF8000)) & M32
    return p - (1 << 15) if (low ^ p) & 0x8000 else p


def packed(sign, e, m):
    """The hw result word of a significand m (one bit too many is shifted out), saturating."""
    if m >= 1 << 24:
        m, e = m >> 1, e + 1
    if e > 255:
        return (sign << 31) | FMAX
    if e < 1:
        return sign << 31
    return (sign << 31) | (e << 23) | (m & 0x7FFFFF)


def mul(fs, ft, model):
    sa, ea, ma = fields(fs)
    sb, eb, mb = fields(ft)
    sign = sa ^ sb
    if ea == 0 or eb == 0:
        return sign << 31
    if model == "trunc":
        return truncated(sign, ma * mb, ea + eb - 300)
    return packed(sign, ea + eb - 127, booth(ma, mb) >> 23)


def sel(s, c):
    t = s32((((s & 0xFF000000) + c) & M32) | (s & 0x00FFFFFF))
    return 1 if t >= 1 << 23 else -1 if t < -(1 << 24) else 0


def div(a, b, model):
    sa, ea, ma = fields(a)
    sb, eb, mb = fields(b)
    sign = sa ^ sb
    if eb == 0:
        return (sign << 31) | FMAX
    if ea == 0:
        return sign << 31
    if model == "trunc":
        return truncated(sign, (ma << 60) // mb, ea - eb - 60)
    d, sig, gam, q, digit = 4 * mb, 4 * ma, 0, 0, 1          # the radix-2 SRT divider (§3.4)
    for _ in range(25):
        q = (2 * q + digit) & M32
        if digit == 1:
            x, gam = M32 - d, gam + 1
        elif digit == -1:
            x = d
        else:
            x = 0
        s2, c2 = csa(sig & M32, gam & M32, x & M32)
        nxt = sel(s2, c2) if digit else sel(sig & M32, gam & M32)
        sig, gam, digit = (2 * s2) & M32, (2 * c2) & M32, nxt
    return packed(sign, ea - eb + 126, q)


def lanes(weight, model):
    """The weight's three s16 lanes (x, y, z)."""
    x = to_int(mul(weight, F4096, model))
    lo, hi, h = x & 0xFFFF, (x >> 16) & 0xFFFF, 0xFFFF if weight >> 31 else 0
    return s16(lo), s16(hi | lo), s16(h | hi | lo)


def modify(q, model):
    base, bs = q["base"], q["base_scale"]
    acc = [[0, 0, 0] for _ in base]
    for t in q["targets"]:
        positions = t["positions"]
        if cmp(t["scale"], bs) != 0:
            ratio = div(t["scale"], bs, model)
            positions = [[s16(to_int(mul(ratio, from_int(c), model))) for c in p] for p in positions]
        lane = lanes(t["weight"], model)
        for v, (b, p) in enumerate(zip(base, positions)):
            for k in range(3):
                acc[v][k] = s32(acc[v][k] + s16(p[k] - b[k]) * lane[k])
    return [[max(-32768, min(32767, s16(a >> 12) + b)) for a, b in zip(av, bv)] for av, bv in zip(acc, base)]


def main():
    wrong = "--wrong" in sys.argv[1:]
    for line in sys.stdin:
        msg = json.loads(line)
        model = msg["float_model"]
        kinds = sorted({q["kind"] for q in msg["queries"]} - {"modify"})
        if kinds:
            reply = {"chunk": msg["chunk"],
                     "error": f"this model answers modify queries only (--check morph), not {', '.join(kinds)}"}
        elif model not in ("hw", "trunc"):
            reply = {"chunk": msg["chunk"], "error": f"no float model {model!r}"}
        else:
            answers = [{"i": q["i"], "kind": "modify", "vertices": modify(q, model)} for q in msg["queries"]]
            if wrong and answers and answers[0]["vertices"]:
                answers[0]["vertices"][0][0] = s16(answers[0]["vertices"][0][0] + 1)
            reply = {"chunk": msg["chunk"], "answers": answers}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
