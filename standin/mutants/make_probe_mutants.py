"""make_probe_mutants.py: regenerate standin/mutants/probe-*.patch, the broken builds the readiness
probe must name. Each is '# Catches: probe' with '# Finding: <kind>', the kind of the
probe's finding line that names the problem. Run: python3 standin/mutants/make_probe_mutants.py
"""
import os, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
M = []


def mut(name, finding, why, edits):
    M.append((name, finding, why, edits))


mut("probe-null_call", "null call",
    "NoteProcess calls funcNoteProcess without testing it for 0 (the executable's default), a call through a null pointer",
    [("anm.c", "    if (!f) return;\n", "")])
mut("probe-sys_unknown_field", "unknown field",
    "SetAnmCtrlWork consults a ccSys word at +0x240 (a pause flag) that executable-abi.md does not list",
    [("anm.c", "    u32 ch, scr = scratch(), coord;\n", "    u32 ch, scr = scratch(), coord;\n    if (U32(ccSys + 0x240) & 1) return;\n")])
mut("probe-memalign_align_first", "ccMemalign order",
    "object controllers allocated with ccMemalign(align, size), the argument order executable-abi.md §6 does not assume",
    [("anmchunk.c", "    u32 ctrl = (u32)ccMalloc__FUi(CTRL_OBJ_SIZE);\n    U16(ctrl) = KIND_OBJECT;",
      "    u32 ctrl = (u32)ccMemalign__FUiUi(16, CTRL_OBJ_SIZE);\n    U16(ctrl) = KIND_OBJECT;")])
mut("probe-output_overrun", "output overrun",
    "the output's zero terminator written at the end of the 4W + 64-byte buffer, past it, and the cursor left there",
    [("anmchunk.c", "    U32(out) = 0;      ", "    out = *cursor + 4 * U32(chunk + CHUNK_W) + 64;\n    U32(out) = 0;      ")])
mut("probe-forward_adds_framespd", "_AnimateForward",
    "_AnimateForward adds ccAnm::frameSpd and ignores its step argument (the seed's reading)",
    [("anm.c", "    u32 nw = time + step, eff = step, ended = 0, w;\n",
      "    u32 nw, eff, ended = 0, w;\n    step = U16(anm + ANM_FRAMESPD);\n    nw = time + step;\n    eff = step;\n")])

only = sys.argv[1:]
for name, finding, why, edits in M:
    if only and name not in only:
        continue
    d = tempfile.mkdtemp()
    a, b = os.path.join(d, "a", "src"), os.path.join(d, "b", "src")
    shutil.copytree(SRC, a); shutil.copytree(SRC, b)
    for f, old, new in edits:
        p = os.path.join(b, f)
        s = open(p).read()
        assert s.count(old) == 1, (name, f, old[:60], s.count(old))
        open(p, "w").write(s.replace(old, new))
    diff = subprocess.run(["diff", "-ru", "a/src", "b/src"], cwd=d, capture_output=True, text=True).stdout
    diff = "\n".join(l if not l.startswith(("--- ", "+++ ")) else l.split("\t")[0] for l in diff.splitlines()) + "\n"
    open(os.path.join(HERE, name + ".patch"), "w").write(f"# Catches: probe\n# Why: {why}\n# Finding: {finding}\n" + diff)
    shutil.rmtree(d)
    print("wrote", name)
