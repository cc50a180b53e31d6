/* The run loop: dispatch on a per-machine index (word offset from the code base -> block number,
 * -1 not native, -2 hooked, -3 a tap hook, -4 a bump hook), with the step budget checked before each block. A tap
 * is a function replaced by nothing: the call's address and argument registers go to st->tap_buf,
 * one unit is counted, and the run goes on at ra; with the buffer full it is left to Python. Included once, at the
 * end of the includes of each generated translation unit; the unit defines the tables. */
#ifndef EE_RUNTIME_H
#define EE_RUNTIME_H

extern const uint32_t ee_nblocks;
extern const ee_block_fn ee_blocks[];
extern const uint32_t ee_block_n[];
extern const uint32_t ee_block_start[];
extern const uint32_t ee_block_end[];
extern const uint32_t ee_block_taken[];   /* a conditional branch block's target (1: none, or ambiguous) */

/* A bump hook's allocation (hooks.py "bump"), served in C: the size from a0 or a1 (rule 0 or 1),
 * or by rule EE_BUMP_MEMALIGN the larger of a0 and a1, aligned to the smaller of them that is a
 * power of two up to 4096 (at least 16). The size rounds up to 16 bytes; the block starts at the
 * heap pointer aligned, is zero-filled (n bytes) and logged; v0 is its address. Returns 0, and
 * changes nothing, when Python must serve the call: an address without a rule, a full log, or a
 * block past the heap's end or RAM's (the Python hook then reports it). */
#define EE_BUMP_MEMALIGN 0xFFu
static int ee_bump(ee_state *st, uint32_t pc) {
    int32_t k = 0;
    while (k < st->bump_nhooks && st->bump_hooks[2 * k] != pc) k++;
    if (k == st->bump_nhooks || st->bump_n >= st->bump_cap) return 0;
    uint32_t rule = st->bump_hooks[2 * k + 1], a0 = (uint32_t)R[4], a1 = (uint32_t)R[5];
    uint64_t n, align = 16;
    if (rule == EE_BUMP_MEMALIGN) {
        uint32_t c = 0;
        if (a0 && !(a0 & (a0 - 1)) && a0 <= 4096) c = a0;
        if (a1 && !(a1 & (a1 - 1)) && a1 <= 4096 && (!c || a1 < c)) c = a1;
        n = a0 > a1 ? a0 : a1;
        if (c > 16) align = c;
    } else {
        n = rule ? a1 : a0;
    }
    uint64_t size = (n + 15) & ~(uint64_t)15;
    uint64_t at = ((uint64_t)st->bump_ptr + align - 1) & ~(align - 1);
    if (at + size > st->bump_end || at + n > RAM_SIZE) return 0;
    if (n) {
        memset(st->ram + at, 0, n);
        for (uint64_t p = at >> 12; p <= (at + n - 1) >> 12; p++) st->dirty[p] = 1;
    }
    uint32_t *row = st->bump_log + BUMP_WORDS * st->bump_n++;
    row[0] = pc; row[1] = a0; row[2] = a1; row[3] = (uint32_t)R[31]; row[4] = (uint32_t)at;
    st->bump_ptr = (uint32_t)(at + size);
    if (st->bump_ptr > st->bump_high) st->bump_high = st->bump_ptr;
    R[2] = (uint64_t)(int64_t)(int32_t)(uint32_t)at;
    return 1;
}

int ee_run(ee_state *st, const int32_t *bidx, uint32_t lo, uint32_t nwords, int one) {
    uint32_t pc = st->pc;
    for (;;) {
        uint32_t i = (pc - lo) >> 2;
        if ((pc & 3) || i >= nwords) { st->pc = pc; return st->why = WHY_MISS; }
        int32_t b = bidx[i];
        if (b == -3 && st->tap_n < st->tap_cap && st->steps + 1 <= st->limit) {
            uint32_t *w = st->tap_buf + TAP_WORDS * st->tap_n++;
            w[0] = pc;
            for (int k = 0; k < 4; k++) { w[1 + k] = (uint32_t)R[4 + k]; w[5 + k] = F[12 + k]; }
            st->steps += 1;
            st->prev = pc;
            pc = (uint32_t)R[31];
            if (one) { st->pc = pc; return st->why = WHY_ONE; }
            continue;
        }
        if (b == -4 && st->steps + 1 <= st->limit && ee_bump(st, pc)) {
            st->steps += 1;
            st->prev = pc;
            pc = (uint32_t)R[31];
            if (one) { st->pc = pc; return st->why = WHY_ONE; }
            continue;
        }
        if (b < 0) { st->pc = pc; return st->why = (b == -1 ? WHY_MISS : WHY_HOOK); }
        if (st->steps + ee_block_n[b] > st->limit) { st->pc = pc; return st->why = WHY_LIMIT; }
        st->why = WHY_NONE;
        st->prev = pc;
        st->annulled = 0;
        pc = ee_blocks[b](st);
        if (st->why) return st->why;          /* the block left early: st->pc is the unit */
        if (st->bcount) {       /* coverage, per block: [taken pc, completed / not taken, likely not
                                 * taken, taken]; no branch: annulled is 1 (annul) or 2 (taken, where
                                 * the target is the fall-through and the taken pc slot holds 1) */
            uint64_t *c = st->bcount + 4 * b;
            c[1 + ((uint32_t)st->annulled | ((uint32_t)(pc == (uint32_t)c[0]) << 1))]++;
        }
        if (one) { st->pc = pc; return st->why = WHY_ONE; }
    }
}

/* A batch of outermost calls run one after the other in C (Machine.call_each with a CallIO,
 * eemu_ext/core/callio.py): call i gets its own R, RH image, entry and budget; the rest of the
 * state carries over from the call before. After each call the guard is checked (the GPRs it
 * names hold their values, no dirty page in its page runs), then the ops whose phase is i modulo
 * period run, in order: write n bytes at a; AND the bytes at n addresses with a mask; gather the
 * u32 words at n addresses (into gathered); gather the taps of address a the call made (per tap,
 * the tap row's words `regs` names, then n words of RAM at row word `arg` + off, into tapped;
 * the taps are taken out of tap_buf, their count is tap_counts[i]). The batch returns to Python
 * (stop, b->i the call concerned) when a call leaves compiled code (STOP_LEFT: Python finishes
 * it and its ops), when the guard trips or a tapped pointer lies outside RAM (STOP_CHECK: the
 * call is done, its ops not: Python checks it and runs them), or before a
 * call when the tap buffer or an output might not have room for it (STOP_ROOM). */
#define EE_SENTINEL 0xFFFFFFF0u
enum { EE_OP_WRITE = 1, EE_OP_AND8 = 2, EE_OP_GATHER = 3, EE_OP_TAPS = 4 };
enum { EE_STOP_DONE = 0, EE_STOP_LEFT = 1, EE_STOP_CHECK = 2, EE_STOP_ROOM = 3 };
typedef struct ee_op {
    uint32_t kind, phase, a, n;    /* a: address, the AND mask, or the tapped address */
    uint32_t arg, off, nregs, regs;   /* EE_OP_TAPS: the row word holding the pointer, its offset,
                                       * and nregs row words (1-8) packed 4 bits each in regs */
    const uint8_t *data;           /* WRITE: n bytes; AND8, GATHER: n RAM offsets (uint32_t) */
} ee_op;
typedef struct ee_batch {
    uint32_t n, i, period, nops;
    const uint32_t *pc;            /* n entry points */
    const uint8_t *gpr;            /* n images of R, RH: 512 bytes each */
    const uint64_t *limit;         /* n step budgets */
    uint64_t *out;                 /* n x (v0, steps) */
    const ee_op *ops;
    uint32_t *gathered, ngathered, gathered_cap;     /* words */
    uint32_t *tapped, ntapped, tapped_cap;           /* words */
    uint32_t *tap_counts;          /* n */
    uint32_t nguard, nruns;
    const uint32_t *guard_reg;     /* nguard GPR numbers */
    const uint64_t *guard_val;     /* their low 64 bits */
    const uint32_t *runs;          /* nruns [lo, hi) runs of RAM pages that must stay clean */
    int32_t tap_from;              /* tap_n when the current call started */
    int32_t stop;
    uint32_t room_gathered, room_tapped;  /* the most a call's ops may add (words) */
    int32_t resume;                /* call i was finished by Python (its taps back in tap_buf from
                                    * tap_from): its guard and ops here, then the next call */
} ee_batch;

int ee_batch_guard(const ee_state *st, const ee_batch *b) {
    for (uint32_t k = 0; k < b->nguard; k++)
        if (R[b->guard_reg[k]] != b->guard_val[k]) return 1;
    for (uint32_t k = 0; k < b->nruns; k++) {
        uint32_t lo = b->runs[2 * k], hi = b->runs[2 * k + 1];
        if (hi > lo && memchr(st->dirty + lo, 1, hi - lo)) return 1;
    }
    return 0;
}

int ee_batch_taps_ok(const ee_state *st, const ee_batch *b, uint32_t i) {
    uint32_t ph = i % b->period;
    for (uint32_t k = 0; k < b->nops; k++) {
        const ee_op *op = b->ops + k;
        if (op->phase != ph || op->kind != EE_OP_TAPS) continue;
        for (int32_t t = b->tap_from; t < st->tap_n; t++) {
            const uint32_t *row = st->tap_buf + TAP_WORDS * t;
            uint32_t at = (row[op->arg] + op->off) & 0x1FFFFFFFu;
            if (row[0] == op->a && (at & 3 || at > RAM_SIZE - 4 * op->n)) return 0;
        }
    }
    return 1;
}

void ee_batch_ops(ee_state *st, ee_batch *b, uint32_t i) {
    uint32_t ph = i % b->period;
    for (uint32_t k = 0; k < b->nops; k++) {
        const ee_op *op = b->ops + k;
        if (op->phase != ph) continue;
        const uint32_t *offs = (const uint32_t *)op->data;
        switch (op->kind) {
        case EE_OP_WRITE:
            memcpy(st->ram + op->a, op->data, op->n);
            for (uint32_t p = op->a >> 12; p <= (op->a + op->n - 1) >> 12; p++) st->dirty[p] = 1;
            break;
        case EE_OP_AND8:
            for (uint32_t j = 0; j < op->n; j++) { st->ram[offs[j]] &= (uint8_t)op->a; st->dirty[offs[j] >> 12] = 1; }
            break;
        case EE_OP_GATHER:
            for (uint32_t j = 0; j < op->n; j++) memcpy(b->gathered + b->ngathered++, st->ram + offs[j], 4);
            break;
        case EE_OP_TAPS: {
            int32_t keep = b->tap_from, count = 0;
            for (int32_t t = b->tap_from; t < st->tap_n; t++) {
                uint32_t *row = st->tap_buf + TAP_WORDS * t;
                if (row[0] != op->a) {             /* another tap's row stays, in order */
                    if (keep != t) memmove(st->tap_buf + TAP_WORDS * keep, row, 4 * TAP_WORDS);
                    keep++;
                    continue;
                }
                for (uint32_t r = 0; r < op->nregs; r++) b->tapped[b->ntapped++] = row[(op->regs >> (4 * r)) & 15];
                uint32_t at = (row[op->arg] + op->off) & 0x1FFFFFFFu;   /* ee_batch_taps_ok: in RAM */
                memcpy(b->tapped + b->ntapped, st->ram + at, 4 * op->n);
                b->ntapped += op->n;
                count++;
            }
            st->tap_n = keep;
            b->tap_counts[i] = (uint32_t)count;
            break;
        }
        }
    }
}

int ee_call_batch(ee_state *st, const int32_t *bidx, uint32_t lo, uint32_t nwords, ee_batch *b) {
    if (b->resume) {
        b->resume = 0;
        if (ee_batch_guard(st, b) || !ee_batch_taps_ok(st, b, b->i)) return b->stop = EE_STOP_CHECK;
        ee_batch_ops(st, b, b->i);
        b->i++;
    }
    while (b->i < b->n) {
        uint32_t i = b->i;
        if (2 * st->tap_n > st->tap_cap || b->ngathered + b->room_gathered > b->gathered_cap
            || b->ntapped + b->room_tapped > b->tapped_cap)
            return b->stop = EE_STOP_ROOM;
        memcpy(R, b->gpr + 512u * i, 512);          /* R, RH: one run of 64 words */
        st->pc = b->pc[i];
        st->steps = 0;
        st->limit = b->limit[i];
        b->tap_from = st->tap_n;
        ee_run(st, bidx, lo, nwords, 0);
        if (st->pc != EE_SENTINEL) return b->stop = EE_STOP_LEFT;
        b->out[2 * i] = R[2] & 0xFFFFFFFFu;
        b->out[2 * i + 1] = st->steps;
        if (ee_batch_guard(st, b) || !ee_batch_taps_ok(st, b, i)) return b->stop = EE_STOP_CHECK;
        ee_batch_ops(st, b, i);
        b->i = i + 1;
    }
    return b->stop = EE_STOP_DONE;
}

uint32_t ee_count(void) { return ee_nblocks; }
uint32_t ee_start(uint32_t b) { return ee_block_start[b]; }
uint32_t ee_size(void) { return sizeof(ee_state); }
long ee_offset(int k) { return k >= 0 && k < EE_STATE_NFIELDS ? ee_state_offsets[k] : -1; }
#endif
