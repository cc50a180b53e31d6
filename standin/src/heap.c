/* heap.c: the empty `heap` section that ends the retail layout (executable-abi.md §1.1): an
 * allocated section of no bytes at the end of the overlay window, where the game's heap begins. */
__asm__(".pushsection .heap,\"aw\",@nobits\n\t.popsection");
