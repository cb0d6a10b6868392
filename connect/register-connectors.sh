#!/bin/sh
# Registers (or updates) every connector in /connect-config/*.json with the Connect worker, then exits.
# PUT /connectors/<name>/config creates or updates, so running it again is safe.
set -eu
connect="${CONNECT_URL:-http://connect:8083}"

echo "Waiting for Kafka Connect at $connect and its MongoDB plugins..."
until curl -fsS "$connect/connector-plugins" 2>/dev/null | grep -q MongoSinkConnector; do
  sleep 2
done

for file in /connect-config/*.json; do
  name="$(jq -r .name "$file")"
  echo "Registering $name from $file"
  jq .config "$file" | curl -fsS -X PUT -H 'Content-Type: application/json' --data @- \
    "$connect/connectors/$name/config" > /dev/null
done
echo "Registered: $(curl -fsS "$connect/connectors")"
