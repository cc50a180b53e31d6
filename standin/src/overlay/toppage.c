/* toppage.c: the stand-in's toppage.prg overlay (see gcmn.c). */
#define OVL __attribute__((section(".ovl.text"), used, noinline))

OVL int TopPageMain__Fv(void) { return 0x70706F74; }                     /* "topp" */
