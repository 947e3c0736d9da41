#!/usr/bin/env bash
# What an open panel costs while nobody touches it: starts bin/compartment-panel
# on a virtual display (Xvfb) against a fresh vault in a throwaway HOME, lets
# it settle, then reads the process's CPU time (utime+stime in /proc/PID/stat)
# over PANEL_IDLE_SECONDS (60) and prints it as a share of one core, with its
# resident memory. Two states: open (the vault unlocked, the window as a user
# leaves it) and locked, the minute counted from a click into the passphrase
# field (its caret blinks for the first 10 s). A measurement, not a test: `make panel-idle` (needs
# `make build` and scripts/setup.d/40-panel-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${PANEL_IDLE_SECONDS:-60}
settle=${PANEL_IDLE_SETTLE:-10}
cli=$PWD/bin/compartment
panel=${PANEL_BIN:-$PWD/bin/compartment-panel}
for f in "$cli" "$panel"; do
	[ -x "$f" ] || { echo "panel-idle: $f is missing; run make build" >&2; exit 1; }
done
for tool in Xvfb xdotool; do
	command -v $tool >/dev/null || { echo "panel-idle: $tool is missing; run make setup" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/.config XDG_DATA_HOME=$tmp/.local/share XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset COMPARTMENT_PASSPHRASE WAYLAND_DISPLAY
vault=$tmp/memory.vault
pass="panel idle passphrase"
c() { "$cli" --vault "$vault" "$@"; }
echo "$pass" | c init --no-app --no-integrate --no-reference --passphrase-stdin >/dev/null
c store --source "from chat" "The user deploys on Fridays only after the freeze lifts" >/dev/null

exec 3<> <(:)
Xvfb -displayfd 3 -screen 0 600x900x24 -nolisten tcp 2>/dev/null &
pids+=($!)
read -r -t 30 num <&3 || { echo "panel-idle: Xvfb did not start" >&2; exit 1; }
export DISPLAY=:$num
hz=$(getconf CLK_TCK)

# measure LABEL: starts the panel, settles, prints CPU and RSS over $secs.
measure() {
	"$panel" --vault "$vault" --cli "$cli" >"$tmp/panel.log" 2>&1 &
	local pid=$!
	pids+=($pid)
	local win
	win=$(timeout 30 xdotool search --sync --name '^Compartment$' | head -1)
	xdotool mousemove --window "$win" 240 700
	sleep "$settle"
	local a b
	a=$(awk '{print $14+$15}' /proc/$pid/stat)
	if [ "$2" = click ]; then
		# Click into the passphrase field, as a user about to type would,
		# and count from there: the caret blinks for Gio's first 10 s.
		xdotool mousemove --window "$win" 240 100 click 1
	fi
	sleep "$secs"
	b=$(awk '{print $14+$15}' /proc/$pid/stat)
	local rss
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
	awk -v l="$1" -v t=$((b - a)) -v hz="$hz" -v s="$secs" -v rss="$rss" 'BEGIN {
		printf "panel idle, %s: %d ticks (%.2f s CPU) in %d s = %.2f%% of one core; RSS %.0f MB\n", l, t, t / hz, s, 100 * t / hz / s, rss / 1024 }'
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

echo "$pass" | c unlock --passphrase-stdin >/dev/null
measure "open vault" still
c lock >/dev/null
measure "locked, clicked into the passphrase field at the start" click
