"""The R5900 instruction table: one module per instruction group, each exporting ROWS and namespace()."""
