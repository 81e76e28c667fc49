"""Helpers for tests and benchmarks that talk to real parts (a private Mosquitto, simulated
tables, a cuttable network). Nothing here is used in production."""
