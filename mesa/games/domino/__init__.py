"""Domino pairs tournaments (seed 002, RULES §5): the rules core and the table's state machine.

Pure like :mod:`mesa.core` and :mod:`mesa.games.backgammon`: time is passed in, nothing here does
I/O.
"""
