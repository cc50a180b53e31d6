/* Integer-only test program for the eemu_ext machine (tests/machine/test_cprog_int.py).
 * Built with: mipsel-linux-gnu-gcc -march=r5900 -mabi=eabi -mlong32 -msingle-float -O2 -G0
 *   -mno-abicalls -fno-pic -ffreestanding -nostdlib -static -no-pie -Wl,-Ttext=0x00100000 -Wl,-e,entry
 * libgcc for EABI is not available, so the 64-bit multiply/divide helpers GCC calls for the R5900
 * (which has no DMULT/DDIV) are written here, as is memcpy. */

typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int u32;

/* ---- runtime support ---------------------------------------------------------------------- */
void *memcpy(void *dst, const void *src, u32 n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, u32 n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

static u64 mul32x32(u32 a, u32 b)
{
    /* GCC would turn (u64)a * b into a call of __muldi3 itself: use MULTU directly */
    u32 lo, hi;
    __asm__("multu %2, %3\n\tmflo %0\n\tmfhi %1" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b) : "hi", "lo");
    return ((u64)hi << 32) | lo;
}

u64 __muldi3(u64 a, u64 b)
{
    /* schoolbook on 32-bit halves: the three partial products that reach the low 64 bits */
    u32 al = (u32)a, ah = (u32)(a >> 32), bl = (u32)b, bh = (u32)(b >> 32);
    u64 lo = mul32x32(al, bl);
    u32 cross = al * bh + ah * bl;               /* MULT, wraps */
    return lo + ((u64)cross << 32);
}

static u64 udivmod(u64 n, u64 d, u64 *rem)
{
    u64 q = 0, r = 0;
    int i;
    for (i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= (u64)1 << i;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

u64 __udivdi3(u64 n, u64 d) { return udivmod(n, d, 0); }
u64 __umoddi3(u64 n, u64 d) { u64 r; udivmod(n, d, &r); return r; }

s64 __divdi3(s64 n, s64 d)
{
    int neg = (n < 0) != (d < 0);
    u64 q = udivmod(n < 0 ? -(u64)n : (u64)n, d < 0 ? -(u64)d : (u64)d, 0);
    return neg ? -(s64)q : (s64)q;
}

s64 __moddi3(s64 n, s64 d)
{
    u64 r;
    udivmod(n < 0 ? -(u64)n : (u64)n, d < 0 ? -(u64)d : (u64)d, &r);
    return n < 0 ? -(s64)r : (s64)r;
}

/* ---- the functions under test -------------------------------------------------------------- */
int entry(void) { return 0; }

int sum_array(const int *a, int n)
{
    int s = 0, i;
    for (i = 0; i < n; i++)
        s += a[i];
    return s;
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int gcd(int a, int b)
{
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

int collatz_steps(u32 x)
{
    int n = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        n++;
    }
    return n;
}

/* 64-bit arithmetic: results returned through a pointer, as two words */
void mul64(s64 *out, s64 a, s64 b) { *out = a * b; }
void div64(s64 *out, s64 a, s64 b) { out[0] = a / b; out[1] = a % b; }
void udiv64(u64 *out, u64 a, u64 b) { out[0] = a / b; out[1] = a % b; }

u32 fnv1a64(const unsigned char *p, int n, u32 *hi)
{
    u64 h = 0xcbf29ce484222325ULL;
    int i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    *hi = (u32)(h >> 32);
    return (u32)h;
}

s64 shifts64(s64 a, int s) { return ((a << s) ^ (a >> (s & 31))) + (s64)((u64)a >> (63 - s)); }

/* struct copies: by assignment and by value */
struct rec {
    int id;
    short kind;
    char name[13];
    s64 big;
    u32 flags[5];
};

static struct rec make_rec(int id)
{
    struct rec r;
    int i;
    memset(&r, 0, sizeof r);             /* padding too, so the copies are deterministic */
    r.id = id;
    r.kind = (short)(id * 3);
    for (i = 0; i < 13; i++)
        r.name[i] = (char)('a' + (id + i) % 26);
    r.big = (s64)id * -1000000007LL;
    for (i = 0; i < 5; i++)
        r.flags[i] = (u32)id << i;
    return r;
}

void copy_recs(struct rec *dst, const struct rec *src, int n)
{
    int i;
    for (i = 0; i < n; i++)
        dst[i] = src[i];
}

u32 rec_checksum(int id)
{
    struct rec r = make_rec(id), c;
    const unsigned char *p;
    u32 h = 0;
    u32 i;
    c = r;
    p = (const unsigned char *)&c;
    for (i = 0; i < sizeof c; i++)
        h = h * 31 + p[i];
    return h;
}

/* a switch (jump table) and a call through a function pointer */
static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return a * b; }
static int (*const ops[3])(int, int) = { op_add, op_sub, op_mul };

int calc(int op, int a, int b)
{
    switch (op) {
    case 0: case 1: case 2: return ops[op](a, b);
    case 3: return a & b;
    case 4: return a | b;
    case 5: return a ^ b;
    case 6: return a << (b & 31);
    case 7: return a >> (b & 31);
    default: return -1;
    }
}

int sort_and_median(int *a, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i - 1; j >= 0 && a[j] > v; j--)
            a[j + 1] = a[j];
        a[j + 1] = v;
    }
    return a[n / 2];
}
