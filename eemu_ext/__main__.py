"""Command line: ``python -m eemu_ext disasm ELF [SYMBOL|ADDR] [--count N]`` and
``python -m eemu_ext run ELF SYMBOL|ADDR [ARGS...] [--trace] [--limit N]``."""
import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("disasm", "run"):
        print("usage: .venv/bin/python -m eemu_ext disasm ELF [SYMBOL|ADDR] [--count N]\n"
              "       python -m eemu_ext run ELF SYMBOL|ADDR [ARGS...] [--trace] [--limit N]", file=sys.stderr)
        return 2
    if argv[0] == "run":
        from eemu_ext.core.trace import main as run_main
        return run_main(argv[1:])
    from eemu_ext.analysis.disasm import main as disasm_main
    return disasm_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
