"""Data flow of the instruction table: which registers and which memory one instruction reads and writes.

Nothing here is declared twice. ``dataflow(word)`` reads the row's own ``sem`` (row.py), with the
instruction's fields substituted, and interprets it abstractly: every ``R[n]``, ``F[n]``,
``VF[n][c]``, ``S.x`` ... in a load is a read, in a store a write (an augmented assignment both);
conditions and loops that depend only on fields (``if fd & 15:``, ``for _c in range(4): if dest &
(8 >> _c):``) are decided, so a VU0 row names only the lanes of its dest mask. A write inside a
condition that depends on state (MOVZ) is a write that may not happen: the old value then flows
through, and the analysis sees the old value read wherever the sem reads it. Loads and stores
(``ld*``/``st*`` and the RAM fast path ``MV*[...]``) become ``Mem`` descriptors with their width and
address expression, evaluable on a machine before the instruction runs.

Helpers that take the state itself (``vu_op(S, ..., dst, ...)``, ``mmi_pmaddh(R, RH, HI, LO, ...)``)
are interpreted through a summary each isa module declares next to them (``EFFECTS``: name ->
(parameters, source in the sem language)); a helper that takes a whole register file or ``S`` and
has no summary is an error, never a silent guess. tests/machine/test_dataflow.py executes every
row on random state and checks the result against these sets.

Locations (``Loc``): ``gpr`` n part (0: bits 0-63, 1: bits 64-127), ``hi``/``lo`` p (pipeline 0/1),
``fpr`` n, ``vf`` n lane, ``vi`` n, ``vacc`` lane, ``cop0`` n, and the scalars ``sa fcr31 acc
acc_ovf q i r mac status clip cmsar0 cpcond0 vi24``. GPR 0, VF0 and VI0 are constants: never a read
or a write.
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, List, NamedTuple, Optional, Tuple

from eemu_ext.isa.row import GPR_NAMES, Row, fields_of

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
LANES = "xyzw"
SCALARS = ("sa", "fcr31", "acc", "acc_ovf", "q", "i", "r", "mac", "status", "clip", "cmsar0", "cpcond0",
           "vi24")
_NOT_STATE = frozenset(("annul",))           # S attributes that are engine bookkeeping


class AnalysisError(Exception):
    """A row's sem does something the data-flow analysis cannot model (names the row and why)."""


class Loc(NamedTuple):
    kind: str           # 'gpr' 'hi' 'lo' 'fpr' 'vf' 'vi' 'vacc' 'cop0' or a scalar name
    n: int = -1         # register number (gpr, fpr, vf, vi, cop0), pipeline (hi, lo)
    part: int = -1      # gpr: 0 low 64 bits, 1 high 64 bits; vf/vacc: lane 0-3 (x-w)

    def __str__(self):
        k = self.kind
        if k == "gpr":
            return f"${GPR_NAMES[self.n]}" + (".hi" if self.part else "")
        if k in ("hi", "lo"):
            return k.upper() + ("1" if self.n else "")
        if k == "fpr":
            return f"$f{self.n}"
        if k == "vf":
            return f"$vf{self.n}{LANES[self.part]}"
        if k == "vi":
            return f"$vi{self.n}"
        if k == "vacc":
            return f"ACC{LANES[self.part]}"
        if k == "cop0":
            return f"cop0[{self.n}]"
        return {"acc": "FPU ACC", "acc_ovf": "FPU ACC overflow latch", "sa": "SA", "fcr31": "FCR31",
                "q": "Q", "i": "I", "r": "R", "mac": "MAC", "status": "STATUS", "clip": "CLIP"}.get(k, k)


def all_locations() -> List[Loc]:
    """Every architectural location the table can name (GPR 0, VF0, VI0 excluded: constants)."""
    out = [Loc("gpr", n, p) for n in range(1, 32) for p in (0, 1)]
    out += [Loc("hi", 0), Loc("hi", 1), Loc("lo", 0), Loc("lo", 1)]
    out += [Loc("fpr", n) for n in range(32)]
    out += [Loc("vf", n, c) for n in range(1, 32) for c in range(4)]
    out += [Loc("vi", n) for n in range(1, 16)]
    out += [Loc("vacc", -1, c) for c in range(4)] + [Loc("cop0", n) for n in range(32)]
    out += [Loc(s) for s in SCALARS]
    return out


def get(m, loc: Loc) -> int:
    """The raw value of loc on machine m (u64 GPR halves, HI/LO; u32 FPR, lanes, scalars; u16 VI)."""
    k = loc.kind
    if k == "gpr":
        return (m.RH if loc.part else m.R)[loc.n]
    if k == "hi":
        return m.HI[loc.n]
    if k == "lo":
        return m.LO[loc.n]
    if k == "fpr":
        return m.F[loc.n]
    if k == "vf":
        return m.VF[loc.n][loc.part]
    if k == "vi":
        return m.VI[loc.n]
    if k == "vacc":
        return m.S.vacc[loc.part]
    if k == "cop0":
        return m.S.cop0[loc.n]
    return int(getattr(m.S, k))


def put(m, loc: Loc, v: int) -> None:
    """Set loc on machine m to v (the inverse of get)."""
    k = loc.kind
    if k == "gpr":
        (m.RH if loc.part else m.R)[loc.n] = v
    elif k == "hi":
        m.HI[loc.n] = v
    elif k == "lo":
        m.LO[loc.n] = v
    elif k == "fpr":
        m.F[loc.n] = v
    elif k == "vf":
        m.VF[loc.n][loc.part] = v
    elif k == "vi":
        m.VI[loc.n] = v
    elif k == "vacc":
        m.S.vacc[loc.part] = v
    elif k == "cop0":
        m.S.cop0[loc.n] = v
    else:
        setattr(m.S, k, v)


class Mem(NamedTuple):
    """One load or store: ``width`` bytes at the address ``expr`` evaluates to before the
    instruction runs. ``base``/``offset``/``align`` when the address is (base + offset) & align."""
    kind: str                   # 'load' | 'store'
    width: int                  # bytes
    expr: str                   # Python source over the machine's state names (R, VI, VU0_MEM ...)
    base: Optional[Loc] = None
    offset: Optional[int] = None
    align: int = M32

    def address(self, m) -> int:
        """The address on machine m's current state (evaluate before the instruction runs)."""
        return eval(_code(self.expr), m.python.G) & M32

    def __str__(self):
        where = (f"{self.offset}({self.base})" if self.base is not None else self.expr)
        if self.base is not None and self.align != M32:
            where += f" & {self.align:#x}"
        return f"{self.kind} {self.width} @ {where}"


_CODES: Dict[str, object] = {}


def _code(expr: str):
    c = _CODES.get(expr)
    if c is None:
        c = _CODES[expr] = compile(expr, "<eemu address>", "eval")
    return c


class Dataflow(NamedTuple):
    reads: frozenset
    writes: frozenset
    mem: Tuple[Mem, ...] = ()
    opaque: str = ""            # why the effects are not all known (a syscall handler), else ''

    @property
    def loads(self):
        return tuple(x for x in self.mem if x.kind == "load")

    @property
    def stores(self):
        return tuple(x for x in self.mem if x.kind == "store")

    def __str__(self):
        def names(s):
            return ", ".join(str(x) for x in sorted(s)) or "-"
        extra = "".join(f"; {x}" for x in self.mem)
        return f"reads {names(self.reads)}; writes {names(self.writes)}{extra}" + (
            f"; opaque: {self.opaque}" if self.opaque else "")


# ------------------------------------------------------------------------------- the interpreter
class _Ref:
    """A mutable piece of machine state a sem name stands for: a register file ('R' 'RH' 'HI' 'LO'
    'F' 'VI' 'VF'), one VF register's lanes ('vf', n), 'S', S.vacc, S.cop0, or scratch (VJUNK)."""
    __slots__ = ("space", "n")

    def __init__(self, space, n=None):
        self.space, self.n = space, n

    def __eq__(self, o):
        return isinstance(o, _Ref) and (o.space, o.n) == (self.space, self.n)

    def __hash__(self):
        return hash((self.space, self.n))


class _Fn:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _MV:
    __slots__ = ("width",)

    def __init__(self, width):
        self.width = width


U = type("Unknown", (), {"__repr__": lambda _self: "U"})()   # a value the analysis does not know
_FILES = {"R": "gpr0", "RH": "gpr1", "HI": "hi", "LO": "lo", "F": "fpr", "VI": "vi"}
_LOADS = {"ld8": 1, "ld16": 2, "ld32": 4, "ld64": 8, "ld128": 16}
_STORES = {"st8": 1, "st16": 2, "st32": 4, "st64": 8, "st128": 16}
_MVS = {"MV8": 1, "MV16": 2, "MV32": 4, "MV64": 8}
_PURE = frozenset(("sx32", "s8", "s16", "s32", "s64", "abs", "int", "bool", "min", "max", "len"))


def _constants():
    from eemu_ext import eefloat
    from eemu_ext.isa import vu0
    return {"M32": M32, "M64": M64, "M128": (1 << 128) - 1, "VU0_MEM": vu0.VU0_MEM,
            "F_OVF": eefloat.OVF, "FCR0_VALUE": eefloat.FCR0_VALUE, "True": 1, "False": 0, "None": U}


def _effects() -> Dict[str, Tuple[List[str], List[ast.stmt]]]:
    """Every isa module's EFFECTS, parsed once."""
    from eemu_ext import isa
    out = {}
    for mod in isa.MODULES:
        for name, (params, src) in getattr(mod, "EFFECTS", {}).items():
            out[name] = ([p.strip() for p in params.split(",") if p.strip()], ast.parse(src).body)
    return out


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.LShift: lambda a, b: a << b,
           ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
           ast.BitXor: lambda a, b: a ^ b}
_CMPS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
         ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Analysis:
    def __init__(self, what: str, consts, effects):
        self.what = what
        self.consts = consts
        self.effects = effects
        self.reads: set = set()
        self.writes: set = set()
        self.mem: List[Tuple[str, int, ast.expr]] = []
        self.opaque = ""
        self.defs: Dict[Loc, Optional[ast.expr]] = {}   # state written so far -> its new value

    def fail(self, why):
        raise AnalysisError(f"{self.what}: {why}")

    # -- locations
    def _loc(self, ref: _Ref, idx):
        if not isinstance(idx, int) or isinstance(idx, bool) and False:
            self.fail(f"register index of {ref.space} is not decided by the fields")
        sp = ref.space
        if sp in ("R", "RH"):
            return Loc("gpr", idx, 1 if sp == "RH" else 0)
        if sp in ("HI", "LO", "F", "VI"):
            return Loc({"HI": "hi", "LO": "lo", "F": "fpr", "VI": "vi"}[sp], idx)
        if sp == "vf":
            return Loc("vf", ref.n, idx)
        if sp == "vacc":
            return Loc("vacc", -1, idx)
        if sp == "cop0":
            return Loc("cop0", idx)
        return None                               # scratch, DIRTY

    def read_all(self, ref: _Ref):
        sp = ref.space
        if sp in ("vf", "vacc"):
            for c in range(4):
                self.reads.add(self._loc(ref, c))
        elif sp in ("scratch", "dirty"):
            pass
        else:
            self.fail(f"the whole of {sp} reaches a helper with no EFFECTS summary")

    # -- expressions
    def ev(self, node, env):
        t = type(node)
        if t is ast.Constant:
            v = node.value
            return int(v) if isinstance(v, (bool, int)) else v
        if t is ast.Name:
            return self.name(node.id, env)
        if t is ast.Subscript:
            base = self.ev(node.value, env)
            if isinstance(base, _MV):
                self.mem.append(("load", base.width, self.mv_address(node, env)))
                self.ev(node.slice, env)
                return U
            idx = self.ev(node.slice, env)
            if isinstance(base, _Ref) and base.space not in ("scratch", "dirty"):
                if base.space == "VF":
                    if not isinstance(idx, int):
                        self.fail("VF register index is not decided by the fields")
                    return _Ref("vf", idx)
                if base.space == "S":
                    self.fail("S subscripted")
                if isinstance(idx, slice):
                    self.read_all(base)
                    return U
                loc = self._loc(base, idx)
                if loc is not None:
                    self.reads.add(loc)
                return U
            if isinstance(base, tuple) and isinstance(idx, int):
                return base[idx]
            return U
        if t is ast.Slice:
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.ev(part, env)
            return slice(None)
        if t is ast.Attribute:
            base = self.ev(node.value, env)
            if isinstance(base, _Ref) and base.space == "S":
                a = node.attr
                if a in ("vacc", "cop0"):
                    return _Ref(a)
                if a not in _NOT_STATE:
                    self.reads.add(Loc(a))
                return U
            if base == "machine":
                self.opaque = self.opaque or f"calls machine.{node.attr}"
            return U
        if t is ast.BinOp:
            a, b = self.ev(node.left, env), self.ev(node.right, env)
            if isinstance(a, int) and isinstance(b, int):
                fn = _BINOPS.get(type(node.op))
                if fn is not None:
                    try:
                        return fn(a, b)
                    except (ValueError, ZeroDivisionError):
                        return U
            return U
        if t is ast.UnaryOp:
            a = self.ev(node.operand, env)
            if isinstance(a, int):
                op = type(node.op)
                return (not a) * 1 if op is ast.Not else -a if op is ast.USub else ~a if op is ast.Invert else a
            return U
        if t is ast.BoolOp:
            is_and = isinstance(node.op, ast.And)
            out = U
            for k, v in enumerate(node.values):
                x = self.ev(v, env)
                if isinstance(x, int):
                    if is_and and not x or not is_and and x:
                        return x if out is U or k == 0 else U
                    out = x if k == 0 else out
                else:
                    out = U
            return out if out is not U else U
        if t is ast.Compare:
            vals = [self.ev(node.left, env)] + [self.ev(c, env) for c in node.comparators]
            if all(isinstance(v, int) for v in vals):
                return int(all(_CMPS[type(op)](a, b) for op, a, b in zip(node.ops, vals, vals[1:])))
            return U
        if t is ast.IfExp:
            c = self.ev(node.test, env)
            if isinstance(c, int):
                return self.ev(node.body if c else node.orelse, env)
            a, b = self.ev(node.body, env), self.ev(node.orelse, env)
            return a if a == b and a is not U else U
        if t in (ast.Tuple, ast.List):
            return tuple(self.ev(e, env) for e in node.elts)
        if t is ast.Call:
            return self.call(node, env)
        if t is ast.JoinedStr or t is ast.FormattedValue:
            return U
        self.fail(f"unsupported expression {type(node).__name__}")

    def name(self, n, env):
        if n in env:
            return env[n][0]
        if n in _FILES:
            return _Ref(n)
        if n == "VF":
            return _Ref("VF")
        if n == "S":
            return _Ref("S")
        if n == "VJUNK":
            return _Ref("scratch")
        if n == "DIRTY":
            return _Ref("dirty")
        if n in _MVS:
            return _MV(_MVS[n])
        if n == "machine":
            return "machine"
        if n in self.consts:
            return self.consts[n]
        return _Fn(n)

    def call(self, node, env):
        f = node.func
        if isinstance(f, ast.Attribute):
            base = self.ev(f.value, env)
            for a in node.args:
                self.ev(a, env)
            if base == "machine":
                self.opaque = self.opaque or f"calls machine.{f.attr}"
            return U
        fn = self.ev(f, env)
        if not isinstance(fn, _Fn):
            self.fail("call of a value that is not a function")
        name = fn.name
        if name in _LOADS:
            self.ev(node.args[0], env)
            self.mem.append(("load", _LOADS[name], self.inline(node.args[0], env)))
            return U
        if name in _STORES:
            self.ev(node.args[0], env)
            self.ev(node.args[1], env)
            self.mem.append(("store", _STORES[name], self.inline(node.args[0], env)))
            return U
        args = [self.ev(a, env) for a in node.args]
        if name == "range":
            if all(isinstance(a, int) for a in args):
                return tuple(range(*args))
            self.fail("range() not decided by the fields")
        if name == "fault":
            return U
        if name in self.effects:
            params, body = self.effects[name]
            if len(params) != len(args):
                self.fail(f"EFFECTS of {name} take {len(params)} arguments, the sem passes {len(args)}")
            inner = {p: (a, None) for p, a in zip(params, args)}
            try:
                self.block(body, inner)
            except _Return as r:
                return r.value
            return U
        for a in args:
            if isinstance(a, _Ref):
                if name in _PURE:
                    self.fail(f"{name} of a register file")
                self.read_all(a)
            elif isinstance(a, tuple):
                for x in a:
                    if isinstance(x, _Ref):
                        self.read_all(x)
        return U

    # -- addresses
    def inline(self, node, env, strict: bool = True):
        """node with every local name replaced by its definition (constants by their value) and
        constant subexpressions folded. A local with no single definition fails (strict) or
        gives None."""
        outer = self

        class Missing(Exception):
            pass

        class Sub(ast.NodeTransformer):
            def visit_Name(self, n):
                if n.id in env:
                    v, src = env[n.id]
                    if isinstance(v, int):
                        return ast.Constant(v)
                    if src is None:
                        if strict:
                            outer.fail(f"address uses {n.id}, whose value depends on the path taken")
                        raise Missing
                    return copy.deepcopy(src)
                return n

            def visit_Subscript(self, n):
                # state this sem already wrote: an address is evaluated before the instruction
                # runs, so it must name the new value's definition (VLQD decrements VI first)
                self.generic_visit(n)
                if (isinstance(n.value, ast.Name) and n.value.id in _FILES and n.value.id not in env
                        and isinstance(n.slice, ast.Constant)):
                    loc = outer._loc(_Ref(n.value.id), n.slice.value)
                    if loc in outer.defs:
                        src = outer.defs[loc]
                        if src is None:
                            if strict:
                                outer.fail(f"address uses {loc}, written on one path only")
                            raise Missing
                        return copy.deepcopy(src)
                return n

            def visit_BinOp(self, n):
                self.generic_visit(n)
                fn = _BINOPS.get(type(n.op))
                if fn is not None and isinstance(n.left, ast.Constant) and isinstance(n.right, ast.Constant) \
                        and isinstance(n.left.value, int) and isinstance(n.right.value, int):
                    return ast.Constant(fn(n.left.value, n.right.value))
                return n

        try:
            return ast.fix_missing_locations(Sub().visit(copy.deepcopy(node)))
        except Missing:
            return None

    def mv_address(self, node, env):
        """The byte address of a RAM fast-path access MVn[index] (index = address >> log2 n)."""
        w = _MVS[node.value.id]
        idx = node.slice
        if w == 1:
            return self.inline(idx, env)
        sh = {2: 1, 4: 2, 8: 3}[w]
        if isinstance(idx, ast.BinOp) and isinstance(idx.op, ast.RShift):
            return self.inline(idx.left, env)
        if (isinstance(idx, ast.BinOp) and isinstance(idx.op, ast.Add) and isinstance(idx.left, ast.BinOp)
                and isinstance(idx.left.op, ast.RShift) and isinstance(idx.right, ast.Constant)):
            return ast.BinOp(self.inline(idx.left.left, env), ast.Add(), ast.Constant(idx.right.value << sh))
        self.fail("RAM fast path with an index that is not address >> shift")

    # -- statements
    def block(self, stmts, env):
        for s in stmts:
            self.stmt(s, env)

    def store(self, target, value, src, env):
        t = type(target)
        if t is ast.Name:
            env[target.id] = (value, src)
        elif t in (ast.Tuple, ast.List):
            vals = value if isinstance(value, tuple) and len(value) == len(target.elts) else [U] * len(target.elts)
            for e, v in zip(target.elts, vals):
                self.store(e, v, None, env)
        elif t is ast.Subscript:
            base = self.ev(target.value, env)
            if isinstance(base, _MV):
                self.ev(target.slice, env)
                self.mem.append(("store", base.width, self.mv_address(target, env)))
                return
            idx = self.ev(target.slice, env)
            if not isinstance(base, _Ref) or base.space in ("scratch", "dirty"):
                return                             # a local list, VJUNK, the dirty-page map
            if isinstance(idx, slice):
                if base.space in ("vf", "vacc"):
                    for c in range(4):
                        self.writes.add(self._loc(base, c))
                    return
                if base.space in ("scratch", "dirty"):
                    return
                self.fail(f"slice store into {base.space}")
            loc = self._loc(base, idx)
            if loc is not None:
                self.writes.add(loc)
                self.defs[loc] = src
        elif t is ast.Attribute:
            base = self.ev(target.value, env)
            if isinstance(base, _Ref) and base.space == "S":
                if target.attr in ("vacc", "cop0"):
                    self.fail(f"S.{target.attr} replaced as a whole")
                if target.attr not in _NOT_STATE:
                    self.writes.add(Loc(target.attr))
            elif base == "machine":
                self.opaque = self.opaque or f"sets machine.{target.attr}"
        else:
            self.fail(f"unsupported assignment target {t.__name__}")

    def stmt(self, s, env):
        t = type(s)
        if t is ast.Assign:
            v = self.ev(s.value, env)
            src = self.inline(s.value, env, strict=False) if len(s.targets) == 1 and isinstance(
                s.targets[0], (ast.Name, ast.Subscript)) and self._inlinable(s.value) else None
            for tg in s.targets:
                self.store(tg, v, src, env)
        elif t is ast.AugAssign:
            load = ast.fix_missing_locations(ast.BinOp(_as_load(s.target), s.op, s.value))
            v = self.ev(load, env)
            self.store(s.target, v, self.inline(load, env, strict=False) if self._inlinable(load)
                       else None, env)
        elif t is ast.Expr:
            self.ev(s.value, env)
        elif t is ast.If:
            c = self.ev(s.test, env)
            if isinstance(c, int):
                self.block(s.body if c else s.orelse, env)
            else:
                # A location written on one path only keeps its old value on the other: the old
                # value flows through, so it is read too (MOVZ reads rd). Likewise a store.
                e1, e2 = dict(env), dict(env)
                saved, nmem = self.writes, len(self.mem)
                self.writes = set()
                self.block(s.body, e1)
                body_w, body_m = self.writes, self.mem[nmem:]
                self.writes, nmem2 = set(), len(self.mem)
                self.block(s.orelse, e2)
                else_w, else_m = self.writes, self.mem[nmem2:]
                self.writes = saved | body_w | else_w
                for loc in body_w | else_w:
                    self.defs[loc] = None
                self.reads |= body_w ^ else_w
                key = {(k, w, ast.unparse(a)) for k, w, a in body_m if k == "store"}
                key2 = {(k, w, ast.unparse(a)) for k, w, a in else_m if k == "store"}
                for k, w, a in body_m + else_m:
                    if k == "store" and ((k, w, ast.unparse(a)) in key) != ((k, w, ast.unparse(a)) in key2):
                        self.mem.append(("load", w, a))
                for k in set(e1) | set(e2):
                    a, b = e1.get(k), e2.get(k)
                    env[k] = a if a is not None and b is not None and a[0] is b[0] and a[1] is b[1] else (U, None)
        elif t is ast.For:
            it = self.ev(s.iter, env)
            if not isinstance(it, tuple) or not isinstance(s.target, ast.Name):
                self.fail("a loop not decided by the fields")
            for v in it:
                env[s.target.id] = (v, ast.Constant(v) if isinstance(v, int) else None)
                self.block(s.body, env)
        elif t is ast.Pass:
            pass
        elif t is ast.Return:
            raise _Return(self.ev(s.value, env) if s.value is not None else U)
        elif t is ast.Raise:
            pass
        else:
            self.fail(f"unsupported statement {t.__name__}")

    def _inlinable(self, node):
        """Whether node's value is one expression of state (no loads or calls: its source can stand in
        for the name in an address)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Call) or isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) \
                    and n.value.id in _MVS:
                return False
        return True


def _as_load(target):
    t = copy.deepcopy(target)
    for n in ast.walk(t):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return t


def _linear(node) -> Optional[Tuple[Loc, int, int]]:
    """(base, offset, align) when node is (R[n] + k) & mask [& mask ...], else None."""
    mask = M32
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) and isinstance(node.right, ast.Constant):
        mask &= node.right.value
        node = node.left
    off = 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.Constant):
        off, node = node.right.value, node.left
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.UnaryOp) \
            and isinstance(node.right.operand, ast.Constant) and isinstance(node.right.op, ast.USub):
        off, node = -node.right.operand.value, node.left
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "R"
            and isinstance(node.slice, ast.Constant)):
        return Loc("gpr", node.slice.value, 0), off, mask
    return None


def _mems(raw) -> Tuple[Mem, ...]:
    seen: Dict[Tuple[str, str], Tuple[int, ast.expr]] = {}
    order = []
    for kind, width, node in raw:
        key = (kind, ast.unparse(node))
        if key not in seen:
            seen[key] = (width, node)
            order.append(key)
        elif seen[key][0] != width:
            raise AnalysisError(f"{key[1]}: accessed with widths {seen[key][0]} and {width}")
    # a second half at X + w of an access of w bytes at X: one access of 2w bytes (LQ/SQ's halves)
    merged = set()
    for key in order:
        w, node = seen[key]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.Constant):
            low = (key[0], ast.unparse(node.left))
            if low in seen and seen[low][0] == node.right.value and low not in merged:
                seen[low] = (2 * seen[low][0], seen[low][1])
                merged.add(key)
    out = []
    for key in order:
        if key in merged:
            continue
        w, node = seen[key]
        lin = _linear(node)
        base, off, align = (lin if lin is not None and lin[0].n != 0 else (None, None, M32))
        out.append(Mem(key[0], w, key[1], base, off, align))
    return tuple(out)


_CONSTS = None
_EFFECTS = None
_MEMO: Dict[Tuple[int, int], Dataflow] = {}


def analyze(row: Row, word: int, pc: int = 0) -> Dataflow:
    """The data flow of ``row`` executing ``word`` (its sem interpreted with the word's fields)."""
    global _CONSTS, _EFFECTS
    if _CONSTS is None:
        _CONSTS, _EFFECTS = _constants(), _effects()
    from eemu_ext.engines.engine import sem_template, substitute
    f = fields_of(word, pc)
    src = substitute(sem_template(row.sem), f) if row.sem.strip() else "pass"
    a = _Analysis(f"{row.mnemonic} (word 0x{word:08x})", _CONSTS, _EFFECTS)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise AnalysisError(f"{a.what}: sem does not parse: {e}") from None
    a.block(tree.body, {})
    writes = set(a.writes)
    if row.link:
        reg = 31 if row.link.isdigit() else f[row.link]
        writes.add(Loc("gpr", reg, 0))
    const = {Loc("gpr", 0, 0), Loc("gpr", 0, 1), Loc("vi", 0)} | {Loc("vf", 0, c) for c in range(4)}
    return Dataflow(frozenset(a.reads - const), frozenset(writes - const), _mems(a.mem),
                    a.opaque or ("" if row.flow != "stop" else "calls the machine's handler"))


def dataflow(word: int, decoder=None) -> Dataflow:
    """The data flow of one instruction word (memoised per word). Raises ValueError for a word the
    table does not decode."""
    from eemu_ext.isa.decode import default_decoder
    dec = decoder or default_decoder()
    key = (id(dec.rows), word & M32)
    got = _MEMO.get(key)
    if got is None:
        rid = dec.decode(word & M32)
        if rid < 0:
            raise ValueError(f"word 0x{word & M32:08x} is not an R5900 instruction: {dec.reason(word & M32)}")
        got = _MEMO[key] = analyze(dec.rows[rid], word & M32)
    return got
