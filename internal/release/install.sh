#!/bin/sh
# Installs compartment from this airgap bundle. No network is used.
#   sh install.sh                    the programs into ~/.local/bin
#   PREFIX=/usr/local sh install.sh  into /usr/local/bin
# The ONNX Runtime library (if any) goes to ~/.compartment/lib and the
# models (if any) to ~/.compartment/models, where compartment looks.
#
# It installs only files SHA256SUMS lists, and nothing at all when the
# bundle holds a file the list does not name, when a checksum differs, when
# the program's line is missing, or when a signature does not verify:
# SHA256SUMS.sig and bin/compartment.sig are checked with the release keys
# of the compartment already installed here (the keys `compartment update`
# trusts), else of the bundle's own program, plus COMPARTMENT_RELEASE_PUB
# (a file holding a release public key) when set. A bundle made without
# the release key installs only with COMPARTMENT_ALLOW_UNSIGNED=1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

fail() {
	echo "install: $*" >&2
	echo "install: nothing was installed" >&2
	exit 1
}

[ -f SHA256SUMS ] || fail "no SHA256SUMS here, so this is not a whole bundle; make it again with 'compartment setup airgap-bundle'"

# Every file of the bundle must be listed, and be a regular file.
odd=$(find . ! -type f ! -type d -print | head -n 1)
[ -z "$odd" ] && odd=$(find . -name '*
*' -print | head -n 1)
[ -z "$odd" ] || fail "${odd#./} is not a regular file (a link, a device, or a name with a line break); refusing the bundle: get it again"
listed=$(mktemp)
present=$(mktemp)
trap 'rm -f "$listed" "$present"' EXIT
bad=$(grep -vnE '^[0-9a-f]{64}  [^ /].*$' SHA256SUMS | head -n 1 || true)
[ -z "$bad" ] || fail "SHA256SUMS line ${bad%%:*} is not '<sha256>  <name>'; refusing the bundle: get it again"
sed 's/^[0-9a-f]\{64\}  //' SHA256SUMS | LC_ALL=C sort >"$listed"
dup=$(uniq -d "$listed" | head -n 1)
[ -z "$dup" ] || fail "SHA256SUMS lists $dup twice; refusing the bundle: get it again"
find . -type f ! -path ./SHA256SUMS ! -path ./SHA256SUMS.sig -print | sed 's|^\./||' | LC_ALL=C sort >"$present"
extra=$(LC_ALL=C comm -13 "$listed" "$present" | head -n 1)
[ -z "$extra" ] || fail "$extra is in the bundle but not in SHA256SUMS (added after the bundle was made); refusing the bundle: get it again"
missing=$(LC_ALL=C comm -23 "$listed" "$present" | head -n 1)
[ -z "$missing" ] || fail "SHA256SUMS lists $missing, which the bundle does not hold; refusing the bundle: get it again"
grep -qx 'bin/compartment' "$listed" || fail "SHA256SUMS has no line for bin/compartment; refusing a program the list does not vouch for: get the bundle again"

if command -v sha256sum >/dev/null 2>&1; then
	sha256sum -c --quiet --strict SHA256SUMS >&2 || fail "a file does not match its checksum in SHA256SUMS; refusing the bundle: get it again"
elif command -v shasum >/dev/null 2>&1; then
	shasum -a 256 -c SHA256SUMS >/dev/null || fail "a file does not match its checksum in SHA256SUMS; refusing the bundle: get it again"
else
	fail "no sha256sum or shasum here to check SHA256SUMS; refusing to install unchecked files"
fi

prefix=${PREFIX:-$HOME/.local}
home=$HOME/.compartment

# The signatures: checked by the compartment installed here when there is
# one (its trusted release keys do not come from this bundle), else by the
# bundle's own program, which was just checked against SHA256SUMS.
checker=
for c in "$prefix/bin/compartment" "$(command -v compartment 2>/dev/null || true)"; do
	if [ -n "$c" ] && [ -x "$c" ] && "$c" setup verify-bundle --help >/dev/null 2>&1; then
		checker=$c
		break
	fi
done
how="the compartment installed at $checker"
if [ -z "$checker" ]; then
	checker=./bin/compartment
	chmod 0755 "$checker"
	how="this bundle's own program (a first install: compare the signing key above with the release key you were given)"
fi
set -- setup verify-bundle
[ "${COMPARTMENT_ALLOW_UNSIGNED:-}" = 1 ] && set -- "$@" --allow-unsigned
[ -n "${COMPARTMENT_RELEASE_PUB:-}" ] && set -- "$@" --key "$COMPARTMENT_RELEASE_PUB"
"$checker" "$@" "$here" || fail "the bundle's signatures do not check out (see above)"
echo "checked with $how"

# Copy beside the target, then rename over it: a running compartment keeps
# its old file and nothing ever sees half a binary.
mkdir -p "$prefix/bin"
[ -d "$home" ] || mkdir -m 0700 -p "$home"
put() { # put SRC DIR MODE: install one listed file into DIR atomically
	cp "$1" "$2/.compartment.new"
	chmod "$3" "$2/.compartment.new"
	mv -f "$2/.compartment.new" "$2/$(basename "$1")"
}
models=
while IFS= read -r f; do
	case "$f" in
	bin/compartment | bin/compartment-panel)
		put "$f" "$prefix/bin" 0755
		echo "installed $prefix/bin/$(basename "$f")"
		;;
	bin/compartment.sig) put "$f" "$prefix/bin" 0644 ;;
	lib/*/*) fail "SHA256SUMS lists $f, deeper than lib/; refusing it" ;;
	lib/*)
		mkdir -p "$home/lib"
		put "$f" "$home/lib" 0644
		case "$f" in lib/libonnxruntime.so.*) ln -sfn "$(basename "$f")" "$home/lib/libonnxruntime.so.1" ;; esac
		echo "installed $home/$f"
		;;
	models/*/*)
		name=${f#models/}
		name=${name%%/*}
		case " $models " in *" $name "*) ;; *)
			models="$models $name"
			rm -rf "$home/models/.new-$name"
			;;
		esac
		dir=$home/models/.new-$name/$(dirname "${f#models/"$name"/}")
		mkdir -p "$dir"
		cp "$f" "$dir/"
		;;
	install.sh | install.ps1 | INSTALL.txt) ;;
	*) echo "install: $f is listed but is not a file this installer knows; left out" >&2 ;;
	esac
done <"$listed"
for name in $models; do
	rm -rf "$home/models/$name"
	mv "$home/models/.new-$name" "$home/models/$name"
	echo "installed model $name in $home/models/$name"
done

case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "add $prefix/bin to your PATH" ;;
esac
echo "next: compartment init   (then: compartment integrate claude, or any agent)"
