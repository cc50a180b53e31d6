/* start.c: the ELF entry. Nothing runs at start-up (executable-abi.md §8.1 item 4): the harness
 * calls the functions directly, so the entry only parks the CPU. */
__attribute__((section(".text.start"), noreturn)) void _start(void)
{
    for (;;) { }
}
