"""The games a table can run, each one folder with the same module names (``backgammon/``,
``domino/``: machine, inputs, transitions, view, …) over :mod:`mesa.engine`, registered once in
:mod:`mesa.games.registry`; :mod:`mesa.games.replay` replays any game's log through it."""
