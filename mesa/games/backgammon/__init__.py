"""Backgammon (HGV and the club's rules): the table's inputs, transitions, state machine and view.

Pure like :mod:`mesa.core`: time is passed in, nothing here does I/O.
"""
