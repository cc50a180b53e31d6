"""The checks of checks.md §2-§7, one module per check, each comparing machine and reference."""
