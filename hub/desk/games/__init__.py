"""Each game's desk part on the one loop: :mod:`.backgammon` (the club's tournaments) and
:mod:`.domino` (the pairs tournament), each named after its game in :mod:`mesa.games.registry`."""
