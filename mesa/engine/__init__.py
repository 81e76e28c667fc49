"""The machinery every game's table shares, owned by no game: inputs and their specs
(:mod:`~mesa.engine.inputs`), outcomes and refusals (:mod:`~mesa.engine.outcome`), the declared
transition tables (:mod:`~mesa.engine.transitions`), the one apply loop
(:mod:`~mesa.engine.machine`) and replay (:mod:`~mesa.engine.replay`). Pure: time is passed in.
"""
