/* The float-model names that compiled row semantics use, bound as eefloat.FloatModel binds them.
 *
 * COP1 and VU0 rows (eemu_ext/isa/cop1.py, vu0.py) call the model through the names of their
 * Python namespace(): f_add ... f_vrsqrt, fcr_arith ... fcr_sqrt, F_OVF, FCR0_VALUE, FCR31_MASK.
 * Block code is compiled with -DEE_MODEL_HW=1 or -DEE_MODEL_TRUNC=1; this header maps each name
 * to the hw_* or tr_* function of eefloat.h exactly as eefloat.HW / eefloat.TRUNC do, and defines
 * EE_FLAGS as the model's ``flags`` (1 under hw, 0 under trunc).
 */
#ifndef EE_MODEL_H
#define EE_MODEL_H
#include "eefloat.h"

#if defined(EE_MODEL_HW) && EE_MODEL_HW && defined(EE_MODEL_TRUNC) && EE_MODEL_TRUNC
#error "model.h: define exactly one of EE_MODEL_HW and EE_MODEL_TRUNC"
#endif

/* shared by both models (eefloat._COMMON) */
#define f_from_int from_int
#define f_to_int   to_int
#define f_key      key
#define f_max      ee_fmax
#define f_min      ee_fmin
#define f_abs      ee_fabs
#define f_neg      ee_fneg

#define F_OVF      EE_OVF
#define FCR0_VALUE EE_FCR0_VALUE

#if defined(EE_MODEL_HW) && EE_MODEL_HW
#define EE_FLAGS   1
#define f_add      hw_add
#define f_sub      hw_sub
#define f_mul      hw_mul
#define f_div      hw_div
#define f_sqrt     hw_sqrt
#define f_rsqrt    hw_rsqrt
#define f_madd     hw_madd
#define f_msub     hw_msub
#define f_itof     itof
#define f_ftoi     ftoi
#define f_vdiv     hw_div
#define f_vsqrt    hw_sqrt
#define f_vrsqrt   hw_vrsqrt
/* fcr_arith, fcr_acc, fcr_div, fcr_sqrt: the hw functions under their own names */
#define FCR31_MASK EE_FCR_WRITABLE
#elif defined(EE_MODEL_TRUNC) && EE_MODEL_TRUNC
#define EE_FLAGS   0
#define f_add      tr_add
#define f_sub      tr_sub
#define f_mul      tr_mul
#define f_div      tr_div
#define f_sqrt     tr_sqrt
#define f_rsqrt    tr_rsqrt
#define f_madd     tr_madd
#define f_msub     tr_msub
#define f_itof     tr_itof
#define f_ftoi     tr_ftoi
#define f_vdiv     tr_div
#define f_vsqrt    tr_sqrt
#define f_vrsqrt   tr_rsqrt
/* DECISION (as cop1.namespace): under trunc FCR31 holds only C, so CTC1 keeps only bit 23, and
 * the flag bookkeeping is fcr_noflags. */
#define fcr_arith  fcr_noflags
#define fcr_acc    fcr_noflags
#define fcr_div    fcr_noflags
#define fcr_sqrt   fcr_noflags
#define FCR31_MASK EE_FCR_C
#else
#error "model.h: compile with -DEE_MODEL_HW=1 or -DEE_MODEL_TRUNC=1"
#endif

#endif
