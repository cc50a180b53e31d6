/* The EE's "hw" float model (docs/spec/ee-float.md §3): values are u32 patterns, never C floats. */
#ifndef EE_FLOAT_H
#define EE_FLOAT_H
#include <stdint.h>

#define EE_SIGN 0x80000000u
#define EE_FMAX 0x7FFFFFFFu
#define EE_ONE 0x3F800000u

uint32_t ee_add(uint32_t a, uint32_t b);
uint32_t ee_sub(uint32_t a, uint32_t b);
uint32_t ee_mul(uint32_t fs, uint32_t ft);            /* fs the multiplicand, ft the Booth-recoded multiplier */
uint32_t ee_div(uint32_t a, uint32_t b);
uint32_t ee_sqrt(uint32_t x);
uint32_t ee_from_int(uint32_t i);                     /* cvt.s.w */
uint32_t ee_to_int(uint32_t x);                       /* cvt.w.s */
uint32_t ee_u2f(uint32_t x);                          /* the compiled unsigned conversion */
/* VMULA, VMADDA, VMADDA, VMADD over four (fs, ft) pairs, with the ACC overflow latch */
uint32_t ee_mac4(const uint32_t fs[4], const uint32_t ft[4]);
double ee_double(uint32_t x);                         /* the EE value: E = 0 is zero, E = 255 a number */

#endif
