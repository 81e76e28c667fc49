"""The hub: ingest and event store, broker and provisioning, the tournament desk, the web dashboard, the demo."""
