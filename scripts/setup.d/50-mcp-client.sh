#!/usr/bin/env bash
# sets: test
# The official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
# internal/mcp/testdata/client/package.json and its package-lock.json), which
# internal/mcp's end-to-end tests use to drive `compartment serve` over stdio.
# Installed into internal/mcp/testdata/client/node_modules (gitignored) with
# `npm ci`: exactly the locked versions, integrity-checked, no install
# scripts. Idempotent: skipped when the installed tree matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=internal/mcp/testdata/client
stamp="$dir/node_modules/.compartment-lock.sha256"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	if command -v apt-get >/dev/null; then
		sudo=""
		[ "$(id -u)" = 0 ] || sudo="sudo"
		export DEBIAN_FRONTEND=noninteractive
		$sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends nodejs npm ||
			{ $sudo apt-get -o DPkg::Lock::Timeout=600 update && $sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends nodejs npm; }
	else
		echo "mcp client: Node.js 18+ and npm are needed for the MCP end-to-end tests" >&2
		exit 1
	fi
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
	echo "mcp client: Node.js $(node --version) is too old; the MCP SDK needs 18 or newer" >&2
	exit 1
fi

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
	echo "mcp client: already installed ($dir/node_modules)"
	exit 0
fi
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" >"$stamp"
echo "mcp client: installed @modelcontextprotocol/sdk $(node -p "require('./$dir/node_modules/@modelcontextprotocol/sdk/package.json').version") into $dir/node_modules"
