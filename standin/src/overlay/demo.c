/* demo.c: the stand-in's demo.prg overlay (see gcmn.c). Its first function sits at the overlay
 * base like gcmn's AnimCtrl: one address, different code, depending on the resident overlay. */
#define OVL __attribute__((section(".ovl.text"), used, noinline))

OVL int DemoMain__Fv(void) { return 0x6F6D6564; }                        /* "demo" */
