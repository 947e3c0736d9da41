#!/usr/bin/env bash
# `make run`: a guided first run on a demo vault under ./.demo/. Unattended
# when COMPARTMENT_PASSPHRASE is set; otherwise it asks once on the terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment
demo=./.demo
export COMPARTMENT_VAULT="$demo/memory.vault"
# Keep the demo's daemon, sessions and identity key inside .demo as well.
export COMPARTMENT_SESSION_DIR="$demo/session"

if [ -z "${COMPARTMENT_PASSPHRASE:-}" ]; then
	if [ -t 0 ]; then
		read -r -s -p "Choose a passphrase for the demo vault (8+ characters): " COMPARTMENT_PASSPHRASE
		echo
		export COMPARTMENT_PASSPHRASE
	else
		echo "make run: set COMPARTMENT_PASSPHRASE to run unattended (no terminal to ask on)" >&2
		exit 2
	fi
fi

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
run() { printf '$ compartment'; printf ' %q' "$@"; printf '\n'; "$bin" "$@"; }

mkdir -p "$demo"
if [ -f "$COMPARTMENT_VAULT" ]; then
	say "Using the demo vault from an earlier run: $COMPARTMENT_VAULT"
else
	say "1. Create an encrypted vault"
	run init --no-app
fi

say "2. Store a few memories (one claim each, with a source)"
run store "The staging database runs on port 5433" --source "read from docker-compose.yml" --tag infra --importance 0.75
run store "Max decided to move customer records from Airtable to Postgres" --source "from chat" --tag northwind --importance 0.9
run store "Priya prefers code reviews before noon" --source "from chat" --kind opinion --importance 0.8
id=$("$bin" store "The deploy key for ci.example.org lives in ~/.ssh/deploy_ci" --source "from chat" --json | sed -n 's/.*"id": "\([0-9a-f]*\)".*/\1/p' | head -n 1)
echo "$id"

say "3. Read one back by id"
run get "$id"

if "$bin" search --help >/dev/null 2>&1; then
	say "4. Search: hybrid recall returns what is relevant"
	run search "what did Max decide about the CRM" || true
	run search "which port is staging on" --top-k 2 || true
fi

say "5. Status"
run status

say "Next"
cat <<TXT
  The demo vault is $COMPARTMENT_VAULT (delete ./.demo to start over).
  Make your own:        compartment init            (vault in ~/.compartment/)
  Store and recall:     compartment store "..." --source "from chat"; compartment search "..."
  Connect an agent:     compartment integrate claude   (or --list to see every client it can wire)
  Everything else:      compartment --help, and README.md
TXT
