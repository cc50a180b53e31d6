"""One chunk or case: every check on one chunk, in process or with a model answering, and the cases built by code."""
