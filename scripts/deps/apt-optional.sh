#!/usr/bin/env bash
# Installs optional Debian packages for a setup step, never failing it:
#   apt-optional.sh WHAT COMMAND PACKAGE...
# Does nothing when COMMAND is already on the PATH; otherwise installs the
# packages with apt-get (running apt-get update once if the lists are
# missing). Where that cannot happen it says what will be skipped.
set -euo pipefail
what=$1 cmd=$2
shift 2
if command -v "$cmd" >/dev/null; then
	echo "$what: already installed ($(command -v "$cmd"))"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "$what: no apt-get here; the checks that need $cmd will be skipped"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if $sudo apt-get install -y --no-install-recommends "$@" >/dev/null ||
	{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "$@" >/dev/null; }; then
	echo "$what: installed ($(command -v "$cmd"))"
else
	echo "$what: could not be installed; the checks that need $cmd will be skipped"
fi
