"""The director's POST actions: the declared :class:`~mesa.hub.web.actions.registry.Action` and
:class:`~mesa.hub.web.actions.registry.Field` registry, the one endpoint that runs them, and the
tournament, table, door and enrolment actions."""
