#!/usr/bin/env bash
# Re-measures the hardening audit's figures (issue 13) against bin/compartment,
# called by scripts/bench.sh: bad inputs refused, an over-limit MCP message,
# single-byte tampering, and older copies put back (rollback). Prints counts;
# fails if any bad input is accepted, any tampered or older file opens, or a
# refused file was changed. The kill -9 figures come from bench-killbatch.sh.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/bin/compartment
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
export HOME=$W/home COMPARTMENT_VAULT=$W/v/memory.vault COMPARTMENT_PASSPHRASE="correct horse battery staple" \
  COMPARTMENT_UNLOCK_DELAY_MS=100 COMPARTMENT_EMBED_DAEMON=0 COMPARTMENT_SESSION_DIR=$W/s COMPARTMENT_BOOT_SECRET_DIR=$W/b
mkdir -p $HOME $W/v
echo "$COMPARTMENT_PASSPHRASE" | $BIN init --no-app --passphrase-stdin >/dev/null 2>&1
[ -f "$COMPARTMENT_VAULT" ] || { echo "hardening: init failed"; exit 1; }
$BIN store "the wiki runs on port 8080" --source "from chat" >/dev/null
refused=0; tried=0
bad() { tried=$((tried+1)); if "$@" >/dev/null 2>$W/err; then echo "ACCEPTED: $*" | cut -c1-120; fail=1; else refused=$((refused+1)); fi; }
long=$(head -c 102400 /dev/zero | tr '\0' s)
tags=(); for i in $(seq 1 40); do tags+=(--tag "t$i"); done
for imp in NaN nan +Inf -Inf Inf inf 1e999 -1e999; do bad $BIN store "importance $imp" --source s --importance "$imp"; done
bad $BIN store "long source" --source "$long"
bad $BIN store "newline source" --source $'a\nb'
bad $BIN store "many tags" --source s "${tags[@]}"
bad $BIN store "long tag" --source s --tag "$(head -c 65 /dev/zero | tr '\0' t)"
for ns in PACKS/x Packs/x pAcKs/x packs/x packs PACKS MAIN Main mAiN ../x 'a b' /x x/ x//y; do bad $BIN store "ns $ns" --source s --namespace "$ns"; done
bad $BIN store "" --source s
bad $BIN store "no source" --source ""
bad $BIN store $'# heading\nbody' --source s
bad $BIN store $'- a\n- b' --source s
bad $BIN store "x" --source s --discovered 2999-01-01
bad $BIN store "x" --source s --expires 2000-01-01
bad $BIN store "x" --source s --kind rumour
for m in ../../x /nonexistent no-such-model bge-small-en-v1.5 ./rel; do bad $BIN config set model "$m"; done
bad $BIN config set duplicate_threshold NaN
bad $BIN config set duplicate_threshold 1.5
bad $BIN config set auto_lock_minutes -1
bad $BIN config set no_such_key 1
bad timeout 20 $BIN import /dev/zero
printf '{"text":"x","importance":1e999}\n' > $W/i1; bad $BIN import $W/i1
printf '{"text":"x","source":"%s"}\n' "$long" > $W/i2; bad $BIN import $W/i2
printf '{"text":"x","namespace":"PACKS/x"}\n' > $W/i3; bad $BIN import $W/i3
printf '{"text":"x","namespace":"MAIN"}\n' > $W/i4; bad $BIN import $W/i4
printf '{not json}\n' > $W/i5; bad $BIN import $W/i5
printf '{"text":"x","id":"zz"}\n' > $W/i6; bad $BIN import $W/i6
printf '{"text":"x","kind":"rumour"}\n' > $W/i7; bad $BIN import $W/i7
live=$($BIN status --json | sed -n 's/.*"live": \([0-9]*\).*/\1/p')
echo "bad inputs: $refused of $tried refused; live memories after them: $live (1 expected)"
[ "$live" = 1 ] || fail=1

# MCP: one message over the limit, then a ping.
replies=$( ( head -c $((64<<20)) /dev/zero | tr '\0' x; printf '\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n' ) | $BIN serve 2>/dev/null | head -2)
if grep -q -- '-32600' <<<"$replies" && grep -q '"id":7' <<<"$replies"; then echo "mcp: a 64 MiB message refused with -32600, the next one answered"; else echo "mcp: over-limit message NOT refused: $replies" | cut -c1-200; fail=1; fi

# Tamper: flip one byte at many offsets of a copy; each must be refused and the file left as it was.
W8=(apple river mountain teacher window garden doctor engine silver market castle forest winter summer bridge camera)
for i in $(seq 1 12); do $BIN store "the ${W8[$((i%16))]} is near the ${W8[$(((i*7+3)%16))]} and the ${W8[$(((i*5+1)%16))]}" --source s >/dev/null; done
cp $COMPARTMENT_VAULT $W/clean.vault
size=$(stat -c %s $W/clean.vault); tref=0; ttry=0
for off in $(seq 0 $((size/60)) $((size-1))); do
  cp $W/clean.vault $W/t.vault
  printf "$(printf '\\x%02x' $(( ( $(od -An -tu1 -j$off -N1 $W/t.vault) ^ 0x5a ) )))" | dd of=$W/t.vault bs=1 seek=$off conv=notrunc 2>/dev/null
  sum=$(sha256sum < $W/t.vault); ttry=$((ttry+1))
  if ! COMPARTMENT_VAULT=$W/t.vault $BIN --accept-rollback recent >/dev/null 2>&1 && [ "$sum" = "$(sha256sum < $W/t.vault)" ]; then tref=$((tref+1)); else echo "tamper at $off NOT refused"; fail=1; fi
done
echo "tamper: $tref of $ttry single-byte edits refused, each file left byte-identical"

# Rollback: keep a copy after each write, then put each older copy back.
rm -f $W/snap.*; for i in $(seq 1 6); do cp $COMPARTMENT_VAULT $W/snap.$i; $BIN store "my ${W8[$i]} keeps the ${W8[$((i+8))]} for the ${W8[$((15-i))]}" --source s >/dev/null; done
$BIN lock >/dev/null 2>&1; cp $W/clean.vault $W/snap.0
cp $COMPARTMENT_VAULT $W/newest.vault; rref=0; rtry=0
for s in $W/snap.*; do rtry=$((rtry+1)); cp $s $COMPARTMENT_VAULT.r && mv $COMPARTMENT_VAULT.r $COMPARTMENT_VAULT
  if $BIN recent >/dev/null 2>$W/err && ! grep -q "older copy" $W/err; then echo "rollback $s opened"; fail=1; else rref=$((rref+1)); fi; done
cp $W/newest.vault $COMPARTMENT_VAULT.r && mv $COMPARTMENT_VAULT.r $COMPARTMENT_VAULT
$BIN recent >/dev/null && echo "rollback: $rref of $rtry older copies refused; the newest still opens" || fail=1
exit $fail
