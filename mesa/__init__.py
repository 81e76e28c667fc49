"""Mesa: backgammon club tournaments from the tables up.

>>> from mesa.core.match import Match
>>> Match(length=3).score
{'a': 0, 'b': 0}
"""

__version__ = "0.1.0"
