#!/bin/sh
# Registers (or updates) every connector in /connect-config/*.json with the Connect worker, then exits.
# PUT /connectors/<name>/config creates or updates, so running it again is safe.
set -eu
connect="${CONNECT_URL:-http://connect:8083}"
user="${CONNECT_USER:-ttl-streams}"
users_file="${CONNECT_USERS_FILE:-/secrets/connect-users.properties}"

# Connect's REST API wants HTTP Basic credentials (BasicAuthSecurityRestExtension). The password goes to curl in a
# config file readable by this user only, not on its command line, where ps would show it.
password="$(sed -n "s/^$user=//p" "$users_file")"
if [ -z "$password" ]; then
  echo "No password for $user in $users_file" >&2
  exit 1
fi
auth="$(mktemp)"
trap 'rm -f "$auth"' EXIT
chmod 600 "$auth"
printf 'user = "%s:%s"\n' "$user" "$password" > "$auth"
api() { curl -fsS -K "$auth" "$@"; }

echo "Waiting for Kafka Connect at $connect and its MongoDB plugins..."
until api "$connect/connector-plugins" 2>/dev/null | grep -q MongoSinkConnector; do
  sleep 2
done

for file in /connect-config/*.json; do
  name="$(jq -r .name "$file")"
  echo "Registering $name from $file"
  jq .config "$file" | api -X PUT -H 'Content-Type: application/json' --data @- \
    "$connect/connectors/$name/config" > /dev/null
done
echo "Registered: $(api "$connect/connectors")"
