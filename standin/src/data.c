/* data.c: the data symbols of executable-abi.md §8.1 and animation-semantics.md (S5432). */
#include "ee.h"

u32 ccSys = 0;                    /* the harness stores its ccSys object's address here */
u32 funcDefaultNoteProcess = 0;   /* 0 in the executable (§10.3) */
/* the four sine coefficients, x9, x7, x5, x3 (animation-semantics.md constants) */
const u32 S5432[4] ALIGN16 = { 0x362E9C14u, 0xB94FB21Fu, 0x3C08873Eu, 0xBE2AAAA4u };
