"""The broker and provisioning: the hub's private or system Mosquitto, accounts and ACLs."""
