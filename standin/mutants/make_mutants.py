"""make_mutants.py: regenerate standin/mutants/*.patch from (file, old, new) edits of standin/src.

Run after changing standin/src: python3 standin/mutants/make_mutants.py [name ...]
"""
import os, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
OUT = HERE
M = []
PROFILE = {}      # name -> the profile `make mutants` checks the mutant with (default: quick)
def mut(name, catches, why, cases, edits, profile=None):
    M.append((name, catches, why, cases, edits))
    if profile:
        PROFILE[name] = profile

mut("loop_at_n", "playback", "the loop test compares the new frame with N instead of N-1, so a loop never resets",
    "xp_flag.cmp::ANM_xpflnut0, ctu1body.cmp::ANM_ctu1run0",
    [("anm.c", "if ((nw >> 8) >= N - 1) {", "if ((nw >> 8) >= N) {")])
mut("note_list_file_order", "notes", "notes appended at the tail of noteRoot, so NoteProcess delivers them in file order",
    "ctu1body.cmp::ANM_ctu1atc0, cbu0ski2.cmp::ANM_cbu0ski2",
    [("anm.c", """    if (anm) {
        U32(note + NOTE_NEXT) = U32(anm + ANM_NOTEROOT);
        U32(anm + ANM_NOTEROOT) = note;""", """    if (anm) {
        u32 *pp = (u32 *)(anm + ANM_NOTEROOT);
        while (*pp) pp = (u32 *)(*pp + NOTE_NEXT);
        U32(note + NOTE_NEXT) = 0;
        *pp = note;""")])
mut("frame0_applied", "notes", "frame 0's per-frame records kept in the playback data, so the first step applies them",
    "ecm1.cmp::ANM_ecm1mag0",
    [("anmchunk.c", "        int keep = copying;", "        int keep = copying || (kind != KIND_OBJECT && kind != KIND_MATERIAL && kind != KIND_TOP);")])
mut("frac_reciprocal", "controllers", "the interpolation fraction computed as t x (1/dur), rounded twice, instead of one division",
    "town01.cmp::ANM_sr1fla1_a, cbu3body.cmp::ANM_cbu3nut2",
    [("ctrl.c", "        frac = seg[0] ? f_div(u2f(t), u2f(seg[0])) : bf(0);\n        for (k = 0; k < w; k++) {",
      "        frac = seg[0] ? FMUL(1, u2f(t), f_div(bf(ONE_BITS), u2f(seg[0]))) : bf(0);\n        for (k = 0; k < w; k++) {")])
mut("texture_round", "materials", "texture offsets rounded to nearest (+0.5 before the conversion) where the game truncates",
    "xdl_load.cmp::ANM_xdl_lod0, xdl_load.cmp::ANM_xdl_lod1",
    [("anm.c", "    s32 i = (s16)f_to_int(FMUL(12, bf(uv), bf(F4096_BITS)));",
      "    float x = FMUL(12, bf(uv), bf(F4096_BITS));\n    s32 i = (s16)f_to_int(f_add(x, (fb(x) >> 31) ? -0.5f : 0.5f));")])
mut("euler_interp", "controllers", "keyed rotations interpolated as Euler angles (degrees per component) instead of a turn about the step's axis",
    "cha2body.cmp::ANM_cha2mag1, town01.cmp::ANM_sr1fla1_a",
    [("ctrl.c", "            ch = rot ? ccAnmCtrlRot_SetCtrl(p + 1, n, frames) : ccAnmCtrlFVec3_SetCtrl(p + 1, w, n, frames);",
      "            ch = ccAnmCtrlFVec3_SetCtrl(p + 1, w, n, frames);\n            if (rot) ch[0] = 5;"),
     ("ctrl.c", "void ccAnmCtrlRot_Set(const u32 *ch, u32 T, u32 *out)\n{\n",
      "void ccAnmCtrlRot_Set(const u32 *ch, u32 T, u32 *out)\n{\n    if (ch[0] == 5) {            /* Euler: interpolate the degrees, then quantise and rotate */\n        u32 deg[3], rad[4] ALIGN16;\n        ((u32 *)ch)[0] = CH_KEYED;\n        ccAnmCtrlFVec3_Set(ch, T, deg);\n        ((u32 *)ch)[0] = 5;\n        rad[0] = quantise(deg[0]); rad[1] = quantise(deg[1]); rad[2] = quantise(deg[2]); rad[3] = 0;\n        sceVu0UnitMatrix(out);\n        sceVu0RotMatrix(out, out, rad);\n        return;\n    }\n")])
mut("blend_no_saturation", "morph", "the morph blend adds the base with a wrapping PADDH instead of the saturating PADDSH (exposed by the synthetic blends of checks.md §5.2; real models never saturate)",
    "",
    [("morpher.c", '"paddsh $15, $15, $12\\n\\t"', '"paddh $15, $15, $12\\n\\t"')])
mut("scratch_alpha_offset", "controllers", "the transparency written to scratch +0xD4 instead of +0xD0",
    "town01.cmp::ANM_sr1fla1_a",
    [("ee.h", "#define SCR_ALPHA      0xD0", "#define SCR_ALPHA      0xD4")])
mut("texture_no_crop", "materials", "texture offsets written without subtracting the material chunk's crop",
    "xdl_load.cmp::ANM_xdl_lod0",
    [("anm.c", "    return (u32)(i - (s16)crop) & 0xFFFF;", "    (void)crop;\n    return (u32)i & 0xFFFF;")])
mut("swap_interp_operands", "controllers", "the interpolation product compiled as frac x delta (fs = frac): different bits under the hw multiplier only",
    "cbu3body.cmp::ANM_cbu3nut2, town01.cmp::ANM_sr1shi1_a",
    [("ctrl.c", "out[k] = fb(f_add(acc[k], FMUL(1, delta, frac)));", "out[k] = fb(f_add(acc[k], FMUL(1, frac, delta)));")])
mut("swap_scale_operands", "playback", "the local matrix R.S computed per element as s_c x R (fs = the scale): different bits under the hw multiplier only",
    "town01.cmp::ANM_sr1shi1_a, xp_flag.cmp::ANM_xpflnut0",
    [("vu0.c", "    sceVu0MulMatrix(local, rot, S);\n", "    {\n        int c, r;\n        for (c = 0; c < 4; c++)\n            for (r = 0; r < 4; r++)\n                local[4 * c + r] = c < 3 ? fb(FMUL(9, bf(S[5 * c]), bf(rot[4 * c + r]))) : rot[4 * c + r];\n    }\n")])
mut("fobj_no_clamp", "fobj", "F_Obj transparency stored without clamping to [0, 1]",
    "xddesk01.cmp::ANM_xddsk0, xddesk01.cmp::ANM_xddsk1",
    [("anm.c", "    if (fkey(alpha) < 0) alpha = 0;\n    else if (fkey(alpha) > fkey(ONE_BITS)) alpha = ONE_BITS;\n", "")])
mut("note_time_own_frame", "notes", "every note's time field is its own frame, also for frame old+1 (the game writes old there)",
    "ctu1body.cmp::ANM_ctu1atc1, egn1.cmp::ANM_egn1atc0",
    [("anm.c", "    u32 frame = old, remaining = nw - old, ret = 0;", "    u32 frame = old + 1, remaining = nw - old, ret = 0;")])
mut("morph_one_frame_late", "playback", "each F_Morpher record takes effect when the next one is read, one frame late",
    "xp_flag.cmp::ANM_xpflnut0",
    [("anm.c", "        else if (kind == KIND_F_MORPHER && n >= 2) DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi(stream, anm, pay, n);",
      "        else if (kind == KIND_F_MORPHER && n >= 2) {\n            static const u32 *late; static u32 late_n;\n            if (late) DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi(stream, anm, late, late_n);\n            late = pay; late_n = n;\n        }")])
mut("u2f_signed", "controllers", "u2f as a plain signed conversion: a backward key's ~2^32 duration becomes negative and the creep turns round",
    "eldl.cmp::ANM_eldlmag0, cbu3body.cmp::ANM_cbu3nut2",
    [("ee.h", "    if ((s32)x >= 0) return f_from_int((s32)x);", "    return f_from_int((s32)x);")])
mut("loop_no_rewind", "notes", "a loop reset sets the time to 0 but does not rewind the reader, so the second pass reads past the end Top",
    "ctu1body.cmp::ANM_ctu1run0, cbu4body.cmp::ANM_cbu4run0",
    [("anm.c", "                OpenData__14ccRingBufferThFPv((void *)(anm + ANM_READER), (void *)U32(chunk + CHUNK_DATA));\n", "")])
mut("end_step_not_evaluated", "playback", "a step that passes the end evaluates nothing (eff := 0, as on a held play-once step) instead of posing at last",
    "ekx1.cmp::ANM_ekx1atc0, town01.cmp::ANM_sr1fla1_a",
    [("anm.c", "        eff = step - (nw - last);\n", "        eff = 0;\n")])
mut("play_once_returns_0", "playback", "the frame-changed branch clears ended and never sets it again for a play-once animation",
    "ekx1.cmp::ANM_ekx1atc0",
    [("anm.c", "            } else {\n                ended = 1;\n            }", "            }")])

mut("no_hold_before_late_key", "playback", "a keyed float or vector channel whose first key is after frame 0 gets no hold segment, so it interpolates from frame 0 towards its second key",
    "xd014.cmp::ANM_xd014002, xd016.cmp::ANM_xd016001",
    [("ctrl.c", """    t = keys[0] << 8;
    if (t != 0) {
        seg[0] = t;
        for (k = 0; k < w; k++) seg[1 + k] = 0;
        seg += 1 + w; S++;
    }""", """    t = keys[0] << 8;""")])
mut("controller_alpha_clamped", "controllers", "the controller transparency clamped to [0, 1] as F_Obj's is (the clamp is F_Obj's alone)",
    "xd013.cmp::ANM_xd013000, xd023.cmp::ANM_xd023000",
    [("anm.c", "    if ((ch = U32(ctrl + 0x10)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, &alpha);\n",
      "    if ((ch = U32(ctrl + 0x10)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, &alpha);\n    if (fkey(alpha) < 0) alpha = 0;\n    else if (fkey(alpha) > fkey(ONE_BITS)) alpha = ONE_BITS;\n")])
mut("texture_saturates", "materials", "U x 4096 saturated to the s16 range instead of wrapping, so a scroll of 8 or more sticks at the edge",
    "xd017.cmp::ANM_xd017000, xd024.cmp::ANM_xd024001",
    [("anm.c", "    s32 i = (s16)f_to_int(FMUL(12, bf(uv), bf(F4096_BITS)));",
      "    s32 i = f_to_int(FMUL(12, bf(uv), bf(F4096_BITS)));\n    i = i > 32767 ? 32767 : i < -32768 ? -32768 : i;")])
mut("rot_per_key_matrix", "controllers", "keyed rotations start each segment from the key's own matrix instead of the running float product, so the stand-in never drifts like the game (a held key poses its own matrix, not the one the turn reached)",
    "cbu3body.cmp::ANM_cbu3nut2",
    [("ctrl.c", """        if (has) {                               /* the passed step multiplies in on the left */
            u32 A[16] ALIGN16;
            a2m(A, ax, ang);
            sceVu0MulMatrix(W, A, W);
        }""", """        if (has) sceVu0CopyMatrix(W, cur);""")])
mut("fobj_scale_first", "fobj", "F_Obj's local matrix composed as T.S.R (the scale applied before the rotation) instead of T.R.S",
    "xddesk01.cmp::ANM_xddsk5, xddesk01.cmp::ANM_xddsk15",
    [("vu0.c", """    tv[0] = pos[0]; tv[1] = pos[1]; tv[2] = pos[2]; tv[3] = 0;
    local_matrix(local, rot, S, tv);""", """    tv[0] = pos[0]; tv[1] = pos[1]; tv[2] = pos[2]; tv[3] = 0;
    local_matrix(local, S, rot, tv);""")])
mut("one_instance_per_object", "controllers", "an object named by several 0x0102 records keeps one instance (its first record's), the way materials behave, so the later records are never posed",
    "xd054.cmp::ANM_xd054001, fld135.cmp::ANM_fld135001",
    [("anmchunk.c", """        case KIND_OBJECT:
            table_add(&t, pay[0], compile_object(pay, n, frames));
            break;""", """        case KIND_OBJECT: {
            u32 i = table_find(&t, pay[0]);
            if (U32(tbl + 8 * i + 4) == 0)
                U32(tbl + 8 * i + 4) = compile_object(pay, n, frames);
            break;
        }""")], profile="nightly")
mut("light_square_of_radius1", "controllers", "the direct light's +0x154 holds the square of radius 1 (+0x14C) instead of radius 2 (+0x150)",
    "se1_3.cmp::ANM_se1_3lig0, se2_2.cmp::ANM_se2_2lig0",
    [("anm.c", "fb(FMUL_FREE(bf(U32(light + LGT_RADIUS2)), bf(U32(light + LGT_RADIUS2))))",
      "fb(FMUL_FREE(bf(U32(light + LGT_RADIUS1)), bf(U32(light + LGT_RADIUS1))))")])

# the anm's objects (anim-objects.md §2-§5): caught by the objects check, the last by world
mut("objects_first_entry_wins", "objects", "a piece already claimed keeps its first claim, so the first of several entries naming one clump node takes it",
    "e036.cmp::ANM_e036000, eff003.cmp::ANM_eff003000",
    [("objects.c", "        if (ci) U32(ci + CI_CLAIM) = e;\n", "        if (ci && !U32(ci + CI_CLAIM)) U32(ci + CI_CLAIM) = e;\n")])
mut("objects_parent_own_slot", "objects", "a hung object's parent read from the entry's own position instead of the position its parent slot holds",
    "e036.cmp::ANM_e036000",
    [("objects.c", "            parent = U32(arr + ENTRY_SIZE * slot + E_OBJ);", "            parent = U32(arr + ENTRY_SIZE * i + E_OBJ);")])
mut("objects_made_not_hung", "objects", "SetAnm hangs clump nodes and effects but leaves the ccObjs it made without a parent",
    "e036.cmp::ANM_e036000, fld084.cmp::ANM_fld084000",
    [("objects.c", "        if (!(U8(e + E_FLAGS) & 2)) continue;", "        if (!(U8(e + E_FLAGS) & 2) || U8(e + E_FLAGS) == 7) continue;")])
mut("objects_draw_without_4", "objects", "ccAnm::Draw draws every entry with any flag set, so an effect entry that lost its claim (flags 1) is drawn too",
    "xd020.cmp::ANM_xd020000",
    [("objects.c", "        if ((U8(e + E_FLAGS) & 4) == 0) continue;", "        if (U8(e + E_FLAGS) == 0) continue;")])
mut("objects_delete_frees_node", "objects", "DeleteAnmIndex frees every drawn and hung entry's object (flags 6 too), a claimed clump node included",
    "e036.cmp::ANM_e036000",
    [("objects.c", "        if (U8(e + E_FLAGS) == 7) {", "        if ((U8(e + E_FLAGS) & 6) == 6) {")])
mut("objects_skin_first_claim", "objects", "a bone or skin model's node table takes each node from the first entry naming it instead of the claim (the last)",
    "c008.cmp::ANM_c008000",
    [("objects.c", "            u32 claim = nci ? U32(nci + CI_CLAIM) : 0;\n",
      "            u32 claim = 0, j;\n            for (j = 0; j < count && !claim; j++)\n"
      "                if (ccGetExternalIndex__FP12ccChunkIndex(chunk_index(stream, (U32(list + 8 * j) - 1) >> 2)) == nci)\n"
      "                    claim = arr + ENTRY_SIZE * j;\n")])
mut("world_local_times_parent", "world", "the world matrix composed as local x parent instead of parent x local",
    "e036.cmp::ANM_e036000",
    [("objects.c", "sceVu0MulMatrix((u32 *)(coord + OBJ_WORLD), (const u32 *)(parent + OBJ_WORLD), (const u32 *)(coord + COORD_LOCAL));",
      "sceVu0MulMatrix((u32 *)(coord + OBJ_WORLD), (const u32 *)(coord + COORD_LOCAL), (const u32 *)(parent + OBJ_WORLD));")])

only = sys.argv[1:]
for name, catches, why, cases, edits in M:
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
    hdr = f"# Catches: {catches}\n# Why: {why}\n" + (f"# Cases: {cases}\n" if cases else "")
    hdr += f"# Profile: {PROFILE[name]}\n" if name in PROFILE else ""
    os.makedirs(os.path.dirname(os.path.join(OUT, name + ".patch")), exist_ok=True)
    open(os.path.join(OUT, name + ".patch"), "w").write(hdr + diff)
    shutil.rmtree(d)
    print("wrote", name)
