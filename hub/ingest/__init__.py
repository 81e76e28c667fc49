"""Ingest and the event store: table events from MQTT into SQLite, idempotent, acked after commit;
``ports`` is what the desk and the web may ask of it."""
