"""The desks: turn table events into tournament results and tables into assignments.

One loop (:mod:`~mesa.hub.desk.loop`: thread, wakes, cursor, sync) and one part per game
(:mod:`mesa.hub.desk.games`), each the game's :class:`~mesa.hub.desk.loop.DeskGame`; what a desk
uses of the hub is :class:`~mesa.hub.desk.ports.DeskHub`.
"""
