"""The commands (console scripts and ``python -m`` entry points), above the library.

Nothing in the library (``probe``, ``judge``, ``datasets``, ``metrics``, ``stats``,
``runs``, ``paper``, ...) or in :mod:`uta_tasks.servers` imports from here (see
``.importlinter``).
"""
