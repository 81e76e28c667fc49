"""What differs per game on the dashboard: each game's declared actions, and its own pages."""
