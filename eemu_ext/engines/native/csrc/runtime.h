/* The run loop: dispatch on a per-machine index (word offset from the code base -> block number,
 * -1 not native, -2 hooked, -3 a tap hook), with the step budget checked before each block. A tap
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

uint32_t ee_count(void) { return ee_nblocks; }
uint32_t ee_start(uint32_t b) { return ee_block_start[b]; }
uint32_t ee_size(void) { return sizeof(ee_state); }
long ee_offset(int k) { return k >= 0 && k < EE_STATE_NFIELDS ? ee_state_offsets[k] : -1; }
#endif
