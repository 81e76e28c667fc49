"""The demo: a hub with a private broker, robot tables and a tournament in accelerated time."""
