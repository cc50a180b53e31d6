/* stubs.c: the functions the harness replaces by address (executable-abi.md §6). Each is a
 * distinct FUNC with a trivial body; the harness hooks them, so these bodies never run there. */
#include "ee.h"

static volatile u32 stub_calls;

void *ccMalloc__FUi(u32 n) { stub_calls += 1; (void)n; return 0; }
void *__nw__FUi(u32 n) { stub_calls += 2; (void)n; return 0; }
void *ccMemalign__FUiUi(u32 n, u32 align) { stub_calls += 3; (void)n; (void)align; return 0; }
int ccFree__FPv(void *p) { stub_calls += 4; (void)p; return 0; }
int __dl__FPv(void *p) { stub_calls += 5; (void)p; return 0; }

/* the reader: +0x24 read pointer, +0x28 end limit (executable-abi.md §5.11) */
int OpenData__14ccRingBufferThFPv(void *rb, void *data)
{
    U32((u32)rb + RB_READ) = (u32)data;
    U32((u32)rb + RB_END) = 0x01F00000u;
    return 0;
}

void *GetWork__16ccDrawPacketCtrlFi(void *ctrl, int n) { stub_calls += 7; (void)ctrl; (void)n; return 0; }
