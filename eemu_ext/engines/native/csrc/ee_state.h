/* ee_state, the native engine's machine state. Generated from eemu_ext/engines/native/state.py
 * (python -m eemu_ext.engines.native.state): edit the table there, not this file. */
#ifndef EE_STATE_H
#define EE_STATE_H
#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 u128;

typedef struct ee_state {
    uint64_t R[32];  /* the low 64 bits of GPR n (Python R) */
    uint64_t RH[32];  /* the high 64 bits of GPR n (Python RH) */
    uint64_t HI[2];
    uint64_t LO[2];
    uint32_t F[32];  /* FPR patterns */
    uint32_t VF[32][4];  /* VU0 float registers, lanes x y z w */
    uint32_t VI[16];  /* VU0 integer registers (u16 values) */
    uint32_t VJUNK[4];  /* scratch for writes to VF0 */
    uint64_t acc_ovf;  /* 0 or the OVF bit (1 << 32), as Python keeps it */
    uint32_t sa;
    uint32_t fcr31;
    uint32_t acc;
    uint32_t vacc[4];  /* VU0 ACC, lanes x y z w */
    uint32_t q;
    uint32_t i;
    uint32_t r;
    uint32_t mac;
    uint32_t status;
    uint32_t clip;
    uint32_t cop0[32];
    uint32_t cmsar0;
    uint32_t cpcond0;
    uint32_t vi24;
    uint8_t *ram;
    uint8_t *spr;
    uint8_t *vu0;
    uint32_t data_floor;  /* data accesses below this address leave native code (0 = none) */
    uint32_t pc;
    uint64_t steps;
    uint64_t limit;
    int32_t why;  /* why the run loop returned to Python (WHY_* in block.h) */
    int32_t log_on;
    int32_t log_n;
    int32_t log_cap;
    uint32_t *log_addr;
    uint8_t *log_size;
    u128 *log_old;
    u128 *log_new;
    uint32_t prev;  /* the start of the last block the run loop entered */
    int32_t annulled;  /* a block left through a likely branch's annul path (1), or took a branch whose target is its fall-through (2) */
    uint64_t *bcount;  /* coverage: per block, [taken pc, completed, likely not taken, taken] (or NULL) */
    uint8_t *dirty;  /* one byte per 4 KiB RAM page, set by every store there (memory.py) */
    uint32_t hole_lo;  /* data accesses in [hole_lo, hole_lo + hole_len) leave native code */
    uint32_t hole_len;
    uint32_t *tap_buf;
    int32_t tap_n;
    int32_t tap_cap;
    uint32_t bump_ptr;  /* the heap's next free byte */
    uint32_t bump_end;  /* one past the heap */
    uint32_t bump_high;  /* the heap's high-water mark */
    uint32_t *bump_hooks;
    int32_t bump_nhooks;
    uint32_t *bump_log;
    int32_t bump_n;
    int32_t bump_cap;
} ee_state;

/* every field's offset, in the table's order (the engine checks them against its ctypes class) */
static const long ee_state_offsets[] = {
    offsetof(ee_state, R),
    offsetof(ee_state, RH),
    offsetof(ee_state, HI),
    offsetof(ee_state, LO),
    offsetof(ee_state, F),
    offsetof(ee_state, VF),
    offsetof(ee_state, VI),
    offsetof(ee_state, VJUNK),
    offsetof(ee_state, acc_ovf),
    offsetof(ee_state, sa),
    offsetof(ee_state, fcr31),
    offsetof(ee_state, acc),
    offsetof(ee_state, vacc),
    offsetof(ee_state, q),
    offsetof(ee_state, i),
    offsetof(ee_state, r),
    offsetof(ee_state, mac),
    offsetof(ee_state, status),
    offsetof(ee_state, clip),
    offsetof(ee_state, cop0),
    offsetof(ee_state, cmsar0),
    offsetof(ee_state, cpcond0),
    offsetof(ee_state, vi24),
    offsetof(ee_state, ram),
    offsetof(ee_state, spr),
    offsetof(ee_state, vu0),
    offsetof(ee_state, data_floor),
    offsetof(ee_state, pc),
    offsetof(ee_state, steps),
    offsetof(ee_state, limit),
    offsetof(ee_state, why),
    offsetof(ee_state, log_on),
    offsetof(ee_state, log_n),
    offsetof(ee_state, log_cap),
    offsetof(ee_state, log_addr),
    offsetof(ee_state, log_size),
    offsetof(ee_state, log_old),
    offsetof(ee_state, log_new),
    offsetof(ee_state, prev),
    offsetof(ee_state, annulled),
    offsetof(ee_state, bcount),
    offsetof(ee_state, dirty),
    offsetof(ee_state, hole_lo),
    offsetof(ee_state, hole_len),
    offsetof(ee_state, tap_buf),
    offsetof(ee_state, tap_n),
    offsetof(ee_state, tap_cap),
    offsetof(ee_state, bump_ptr),
    offsetof(ee_state, bump_end),
    offsetof(ee_state, bump_high),
    offsetof(ee_state, bump_hooks),
    offsetof(ee_state, bump_nhooks),
    offsetof(ee_state, bump_log),
    offsetof(ee_state, bump_n),
    offsetof(ee_state, bump_cap),
};
#define EE_STATE_NFIELDS 55
#define TAP_WORDS 9  /* words per tapped call in tap_buf */
#define BUMP_WORDS 5  /* words per allocation in bump_log */
#endif
