"""Executables into memory: ``elf`` (images and symbols), ``layout`` (the retail layout: main,
overlays, window, symbol sources), ``sidecar`` (a stripped volume's ``.syms``), ``overlays``
(``DATA/<NAME>.PRG``) and ``function_names`` (a name given by a person, resolved to a symbol)."""
