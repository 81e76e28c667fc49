"""The tournament desk: turns table events into tournament results and tables into assignments."""
