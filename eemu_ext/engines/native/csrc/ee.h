/* The native engine's view of the machine: one state struct, memory access, and the conventions
 * every row's compiled semantics (Row.c, in eemu_ext/isa/*.py) is written in.
 *
 * A row's ``c`` is C statements in the same field-token language as its Python ``sem``: every
 * whole-word field token (rs rt rd sa ... btarget jtarget, see isa/row.py) not preceded by '.' or
 * '->' is replaced by the instruction's field value before compiling. The names below make most
 * sems read the same in both languages:
 *
 *   R[n] RH[n]    uint64_t, the low and high 64 bits of GPR n     (Python R, RH)
 *   HI[p] LO[p]   uint64_t                                         (Python HI, LO)
 *   F[n]          uint32_t FPR pattern                             (Python F)
 *   VF[n][c]      uint32_t VU0 float register lanes                (Python VF)
 *   VI[n]         uint32_t VU0 integer registers (u16 values)      (Python VI)
 *   S.x           scalar state: S.sa S.fcr31 S.acc S.acc_ovf S.vacc[c] S.q S.i S.r S.mac
 *                 S.status S.clip S.cop0[n] S.cmsar0 S.cpcond0 S.vi24  (Python m.S.x)
 *   VJUNK         a scratch uint32_t[4] for writes to VF0
 *   LD8(a) LD16(a) LD32(a) LD64(a) LD128(a)   loads (unsigned; LD128 gives u128)
 *   ST8(a,v) ... ST128(a,v)                   stores
 *   SX32(x)       the low 32 bits of x sign-extended to uint64_t
 *   S8 S16 S32 S64(x)   the low bits of x read as a signed value (int64_t)
 *   M32 M64       masks
 *   cond, tgt     flow rows set these (int cond; uint32_t tgt), as in Python
 *
 * A load or store that the fast path cannot serve (unmapped, misaligned, below the data floor,
 * MMIO) jumps to the unit's exit: the block returns to the Python engine *before* that
 * instruction, every earlier instruction committed, and the Python engine executes it (raising the
 * exact error, or serving the access on its slow path). So a row's C must not write machine state
 * before its last load or store that can fail; rows where that would be awkward are Python-only.
 */
#ifndef EE_H
#define EE_H
#include <stdint.h>
#include <string.h>

#include "ee_state.h"      /* the state struct, generated from eemu_ext/engines/native/state.py */

#define M32 0xFFFFFFFFULL
#define M64 0xFFFFFFFFFFFFFFFFULL
#define SX32(x) ((uint64_t)(int64_t)(int32_t)(uint32_t)(x))
#define S8(x)  ((int64_t)(int8_t)(uint8_t)(x))
#define S16(x) ((int64_t)(int16_t)(uint16_t)(x))
#define S32(x) ((int64_t)(int32_t)(uint32_t)(x))
#define S64(x) ((int64_t)(uint64_t)(x))

#endif
