#!/usr/bin/env bash
# Set up the broker accounts of a venue in one go: the hub, then tables 1…N.
#   sudo systemd/mosquitto/provision.sh 12 hub.local
# Each table's config lands in ./tables/table-<id>.json (copy it to that table's Pi as
# /etc/mesa/table.json); the hub's credentials in /etc/mesa/hub-credentials.json.
set -euo pipefail
count=${1:?number of tables}
hub_host=${2:?the hub address as the tables see it}
mesa=${MESA:-mesa}
passwd=/etc/mosquitto/mesa.passwd
install -m 644 "$(dirname "$0")/mosquitto.conf" /etc/mosquitto/mosquitto.conf
install -m 644 "$(dirname "$0")/acl" /etc/mosquitto/mesa.acl
mkdir -p /etc/mesa tables
"$mesa" provision-hub --passwd "$passwd" --out /etc/mesa/hub-credentials.json --no-reload
chown mesa: /etc/mesa/hub-credentials.json 2>/dev/null || echo "create user mesa, then chown /etc/mesa/hub-credentials.json"
for i in $(seq 1 "$count"); do
  "$mesa" provision-table "$i" --hub-host "$hub_host" --passwd "$passwd" \
    --out "tables/table-$i.json" --no-reload
done
chgrp mosquitto "$passwd" && chmod 640 "$passwd"
systemctl restart mosquitto
