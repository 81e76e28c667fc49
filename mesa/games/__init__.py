"""The games a table can run, each registered once (:mod:`mesa.games.registry`)."""
