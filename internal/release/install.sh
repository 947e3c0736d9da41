#!/bin/sh
# Installs compartment from this airgap bundle. No network is used.
#   sh install.sh                    the program into ~/.local/bin
#   PREFIX=/usr/local sh install.sh  into /usr/local/bin
# The ONNX Runtime library (if any) goes to ~/.compartment/lib and the
# models (if any) to ~/.compartment/models, where compartment looks.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if command -v sha256sum >/dev/null 2>&1; then
	sha256sum -c --quiet SHA256SUMS
elif command -v shasum >/dev/null 2>&1; then
	shasum -a 256 -c SHA256SUMS >/dev/null
else
	echo "install: no sha256sum or shasum here to check SHA256SUMS; refusing to install unchecked files" >&2
	exit 1
fi

prefix=${PREFIX:-$HOME/.local}
home=$HOME/.compartment
mkdir -p "$prefix/bin"
[ -d "$home" ] || mkdir -m 0700 -p "$home"

# Copy beside the target, then rename over it: a running compartment keeps
# its old file and nothing ever sees half a binary.
cp bin/compartment "$prefix/bin/.compartment.new"
chmod 0755 "$prefix/bin/.compartment.new"
mv -f "$prefix/bin/.compartment.new" "$prefix/bin/compartment"
if [ -f bin/compartment.sig ]; then
	cp bin/compartment.sig "$prefix/bin/compartment.sig"
fi
echo "installed $prefix/bin/compartment"

if [ -d lib ]; then
	mkdir -p "$home/lib"
	for f in lib/*; do
		cp "$f" "$home/lib/.new" && mv -f "$home/lib/.new" "$home/lib/$(basename "$f")"
		case "$f" in *libonnxruntime.so.*) ln -sfn "$(basename "$f")" "$home/lib/libonnxruntime.so.1" ;; esac
		echo "installed $home/lib/$(basename "$f")"
	done
fi
if [ -d models ]; then
	mkdir -p "$home/models"
	for m in models/*; do
		name=$(basename "$m")
		rm -rf "$home/models/.new-$name"
		cp -R "$m" "$home/models/.new-$name"
		rm -rf "$home/models/$name"
		mv "$home/models/.new-$name" "$home/models/$name"
		echo "installed model $name in $home/models/$name"
	done
fi

case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "add $prefix/bin to your PATH" ;;
esac
echo "next: compartment init   (then: compartment integrate claude, or any agent)"
