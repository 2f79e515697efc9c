"""Logic puzzles as qlib models.

Each puzzle module offers the same verbs: ``parse`` (read a puzzle),
``build_model`` (turn it into a :class:`qlib.Model`), ``solve``, ``decode``,
``check``, ``render_text`` and ``draw``.  Import the module you need, e.g.
``from qlib.puzzles import nonogram``.
"""
