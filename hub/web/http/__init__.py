"""The dashboard's HTTP plumbing: the server and its connection limits, the security headers and
body limit, the request and response helpers, the URL paths, the director's login, sessions and
CSRF guard, the first run, and the live stream (``/events``)."""
