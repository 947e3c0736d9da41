#!/usr/bin/env bash
# SQLite with FTS5, for the literal-search side-by-side (bench/fts5/run.sh):
# Debian's sqlite3 CLI and python3 (whose sqlite3 module links the same
# libsqlite3, built with FTS5). Only the benchmark needs them, not the tests.
set -euo pipefail
if command -v sqlite3 >/dev/null && /usr/bin/python3 -c "import sqlite3; sqlite3.connect(':memory:').execute('create virtual table t using fts5(x)')" 2>/dev/null; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get install -y sqlite3 python3 >/dev/null ||
	{ $SUDO apt-get update >/dev/null && $SUDO apt-get install -y sqlite3 python3 >/dev/null; }
