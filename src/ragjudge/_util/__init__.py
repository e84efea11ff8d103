"""Small helpers every package may use: the garbage-collector policy of the command,
lazy exports, worker-process helpers, importing user code by path, the encoding rule of
text files, masking secrets, reading an HTTP body under a cap, the optional extras.

It imports nothing else of ragjudge but :mod:`ragjudge.errors`."""
