"""Command line: ``python -m eemu_ext disasm ELF [SYMBOL|ADDR] [--count N]``."""
import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("disasm",):
        print("usage: python -m eemu_ext disasm ELF [SYMBOL|ADDR] [--count N]", file=sys.stderr)
        return 2
    from .disasm import main as disasm_main
    return disasm_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
