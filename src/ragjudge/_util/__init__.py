"""Small helpers every package may use: the garbage-collector policy of the command,
lazy exports, worker-process helpers, importing user code by path, masking secrets.

It imports nothing else of ragjudge."""
