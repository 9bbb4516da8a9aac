"""Compatibility harness: the seed tutorials' code blocks, run under pjtorch, against PyTorch's recorded output.

``python -m compat`` runs the report; ``python -m compat.record`` (needs real PyTorch) records
the expected outputs; ``python -m compat.manifest`` refreshes the scripts' flags.
"""
