/* desktop.c: the stand-in's desktop.prg overlay (see gcmn.c). */
#define OVL __attribute__((section(".ovl.text"), used, noinline))

OVL int DesktopMain__Fv(void) { return 0x6B736564; }                     /* "desk" */
