/* gcmn.c: the stand-in's gcmn.prg overlay. Loaded at run time from DATA/GCMN.PRG at the overlay
 * base (executable-abi.md §1.2); the ELF keeps its symbols but no bytes. Nothing on the animation
 * path calls it: it exists so that the loader meets an overlay the way the retail layout has them.
 * Each function returns a value that tells which overlay is resident. */
#define OVL __attribute__((section(".ovl.text"), used, noinline))

OVL int AnimCtrl__8ccPlayerFv(void) { return 0x6E6D6367; }              /* "gcmn" */
OVL int CheckNote__8ccPlayerFP9ccAnmNote(int note) { return note + 1; }
