"""The ``svt-verify`` command line.

Commands are plugins: each module exposes ``register(subparsers)`` and is
listed in the entry-point group ``svt_verify.commands`` (pyproject.toml), so
the library never imports the packages built on it (``proofs``).
"""
