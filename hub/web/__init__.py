"""The web dashboard: routes, pages, director actions, login, live feed, exports, templates."""
