"""Ingest and the event store: table events from MQTT into SQLite, idempotent, acked after commit."""
