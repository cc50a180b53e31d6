/* What translated blocks see: the row names of ee.h bound to one ee_state *st, memory access with
 * the exit-to-Python protocol, and the run loop's entry points. Included once by each generated
 * translation unit. */
#ifndef EE_BLOCK_H
#define EE_BLOCK_H
#include "ee.h"

#define RAM_SIZE 0x02000000u
#define SPR_BASE 0x70000000u
#define SPR_SIZE 0x4000u
#define VU0_BASE 0x11004000u
#define VU0_WINDOW 0x4000u
#define VU0_SIZE 0x1000u

/* why the run loop returned (ee_state.why) */
enum { WHY_NONE = 0, WHY_UNIT = 1, WHY_MISS = 2, WHY_HOOK = 3, WHY_LIMIT = 4, WHY_ONE = 5 };

/* The host address of an access of n bytes at a (n a power of two), or 0: misaligned, unmapped,
 * below the data floor, in the data hole or anything else the Python slow path must serve. RAM is the inline fast
 * path; the rest is out of line, to keep blocks small. */
static __attribute__((noinline)) uint8_t *ee_host_slow(ee_state *st, uint32_t a, uint32_t n) {
    if (a & (n - 1)) return 0;
    if (a < RAM_SIZE) return a >= st->data_floor && a - st->hole_lo >= st->hole_len ? st->ram + a : 0;
    uint32_t o = a - SPR_BASE;
    if (o < SPR_SIZE) return st->spr + o;
    o = a - VU0_BASE;
    if (o < VU0_WINDOW) return st->vu0 + (o & (VU0_SIZE - 1));
    switch (a >> 28) {               /* RAM mirrors (memory.py RAM_MIRRORS) */
    case 0x2: case 0x3: o = a & 0x0FFFFFFFu; return o < RAM_SIZE && o >= st->data_floor && o - st->hole_lo >= st->hole_len ? st->ram + o : 0;
    case 0x8: case 0xA: o = a & 0x1FFFFFFFu; return o < RAM_SIZE && o >= st->data_floor && o - st->hole_lo >= st->hole_len ? st->ram + o : 0;
    }
    return 0;
}

static inline uint8_t *ee_host(ee_state *st, uint32_t a, uint32_t n) {
    if (__builtin_expect(!(a & (n - 1)) && a < RAM_SIZE && a >= st->data_floor && a - st->hole_lo >= st->hole_len, 1))
        return st->ram + a;
    return ee_host_slow(st, a, n);
}

static __attribute__((noinline)) void ee_log(ee_state *st, uint32_t a, uint32_t n, const uint8_t *host,
                                             const void *val) {
    if (st->log_n < st->log_cap) {
        int k = st->log_n++;
        u128 old = 0, v = 0;
        memcpy(&old, host, n);
        memcpy(&v, val, n);
        st->log_addr[k] = a; st->log_size[k] = (uint8_t)n; st->log_old[k] = old; st->log_new[k] = v;
    } else {
        st->log_n = st->log_cap + 1;       /* overflow: the engine reports it */
    }
}

/* macro locals are named _ee_* so they never shadow a row's own names */
#define EE_LD(T, n, a) ({ uint8_t *_ee_h = ee_host(st, (uint32_t)(a), n); if (!_ee_h) goto fault; T _ee_v; \
                          memcpy(&_ee_v, _ee_h, n); _ee_v; })
#define EE_ST(T, n, a, v) do { uint32_t _ee_a = (uint32_t)(a); T _ee_v = (T)(v); \
                               uint8_t *_ee_h = ee_host(st, _ee_a, n); if (!_ee_h) goto fault; \
                               if (__builtin_expect(st->log_on, 0)) ee_log(st, _ee_a, n, _ee_h, &_ee_v); \
                               memcpy(_ee_h, &_ee_v, n); \
                               size_t _ee_o = (size_t)(_ee_h - st->ram); \
                               if (_ee_o < RAM_SIZE) st->dirty[_ee_o >> 12] = 1; } while (0)
#define LD8(a) EE_LD(uint8_t, 1, a)
#define LD16(a) EE_LD(uint16_t, 2, a)
#define LD32(a) EE_LD(uint32_t, 4, a)
#define LD64(a) EE_LD(uint64_t, 8, a)
#define LD128(a) EE_LD(u128, 16, a)
#define ST8(a, v) EE_ST(uint8_t, 1, a, v)
#define ST16(a, v) EE_ST(uint16_t, 2, a, v)
#define ST32(a, v) EE_ST(uint32_t, 4, a, v)
#define ST64(a, v) EE_ST(uint64_t, 8, a, v)
#define ST128(a, v) EE_ST(u128, 16, a, v)
/* leave native code before this instruction: the Python engine runs it (a trap, a rare path) */
#define TO_PYTHON goto fault

#define R (st->R)
#define RH (st->RH)
#define HI (st->HI)
#define LO (st->LO)
#define F (st->F)
#define VF (st->VF)
#define VI (st->VI)
#define VJUNK (st->VJUNK)
#define S (*st)

typedef uint32_t (*ee_block_fn)(ee_state *);

#endif
