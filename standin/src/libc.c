/* libc.c: memcpy and memset of our own (freestanding). memcpy moves 8 bytes at a time with
 * unaligned LDL/LDR loads, as the game's copies from chunk data do. */
#include "ee.h"

void *memcpy(void *d, const void *s, u32 n)
{
    u8 *dp = (u8 *)d;
    const u8 *sp = (const u8 *)s;
    if ((((u32)dp) & 7) == 0) {
        while (n >= 8) {
            u64 v;
            __asm__ ("ldl %0, 7(%1)\n\tldr %0, 0(%1)" : "=&r"(v) : "r"(sp) : "memory");
            *(u64 *)dp = v;
            dp += 8; sp += 8; n -= 8;
        }
    }
    while (n--) *dp++ = *sp++;
    return d;
}

void *memset(void *d, int c, u32 n)
{
    u8 *dp = (u8 *)d;
    u64 v = (u8)c;
    v |= v << 8; v |= v << 16; v |= v << 32;
    while (n && (((u32)dp) & 7)) { *dp++ = (u8)c; n--; }
    while (n >= 8) { *(u64 *)dp = v; dp += 8; n -= 8; }
    while (n--) *dp++ = (u8)c;
    return d;
}
