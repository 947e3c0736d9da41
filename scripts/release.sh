#!/usr/bin/env bash
# `make release`: builds compartment for every supported system, signs each
# binary and the checksum list with the release key, and writes
#   dist/<version>/compartment_<version>_<os>_<arch>.tar.gz   (five archives)
#   dist/<version>/SHA256SUMS, SHA256SUMS.sig, release.pub
# Each archive holds compartment/{compartment[.exe], compartment.sig,
# README.md, INSTALL.txt}, and compartment-panel[.exe] where the panel builds
# here (the native Linux build, with cgo, and Windows). The key is $COMPARTMENT_RELEASE_KEY, else a
# development key made on first use under .cache/release/ (RELEASING.md says
# how a real release key is kept). Archives are reproducible: fixed
# mtimes, owners and order, gzip without a timestamp.
set -euo pipefail
cd "$(dirname "$0")/.."

# Versions must order (`update` refuses an older one): the newest v* tag as
# git describe writes it, else v0.0.0-<commit count>-g<hash> before the first.
version=${VERSION:-$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null ||
	echo "v0.0.0-$(git rev-list --count HEAD 2>/dev/null || echo 0)-g$(git rev-parse --short HEAD 2>/dev/null || echo 0)")}
targets=${RELEASE_TARGETS:-"linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64"}
key=${COMPARTMENT_RELEASE_KEY:-.cache/release/dev-release.key}
out=dist/$version
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

tool=.cache/bin/compartment-release
go build -o "$tool" ./cmd/compartment-release
if [ ! -f "$key" ]; then
	if [ -n "${COMPARTMENT_RELEASE_KEY:-}" ]; then
		echo "release: COMPARTMENT_RELEASE_KEY=$key does not exist" >&2
		exit 1
	fi
	echo "release: no release key configured; making a development key at $key (binaries built now trust it, nobody else does)"
	"$tool" keygen "$key" >/dev/null
fi
pub=$("$tool" pubkey "$key")
echo "release: version $version, signing key $pub"

rm -rf "$out"
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
ldflags="-s -w -X main.version=$version -X github.com/compartment/compartment/internal/release.buildKey=$pub"

for t in $targets; do
	os=${t%/*} arch=${t#*/}
	name=compartment_${version}_${os}_${arch}
	dir=$stage/$name/compartment
	mkdir -p "$dir"
	exe=compartment
	[ "$os" = windows ] && exe=compartment.exe
	# cgo only where ONNX Runtime can be linked here: the native Linux build.
	cgo=0
	if [ "$t" = "$(go env GOOS)/$(go env GOARCH)" ] && command -v gcc >/dev/null; then cgo=1; fi
	echo "== build $t (cgo=$cgo)"
	GOOS=$os GOARCH=$arch CGO_ENABLED=$cgo nice go build -trimpath -ldflags "$ldflags" -o "$dir/$exe" ./cmd/compartment
	"$tool" sign-binary -key "$key" -version "$version" -target "$t" "$dir/$exe"
	[ "$exe" = compartment ] || mv "$dir/$exe.sig" "$dir/compartment.sig"
	# The panel: cgo (GL, X11) on Linux, so only the native build; none on
	# macOS here (it needs cgo and Apple's SDK).
	panel=
	if [ "$os" = windows ] || { [ "$os" = linux ] && [ "$cgo" = 1 ]; }; then
		pexe=compartment-panel
		[ "$os" = windows ] && pexe=compartment-panel.exe
		if GOOS=$os GOARCH=$arch CGO_ENABLED=$cgo nice go build -trimpath -ldflags "-s -w" -o "$dir/$pexe" ./cmd/compartment-panel; then
			panel=-panel
		else
			echo "release: the panel did not build for $t (see above); the archive has none"
			rm -f "$dir/$pexe"
		fi
	fi
	cp README.md "$dir/README.md"
	"$tool" install-text $panel "$os" > "$dir/INSTALL.txt"
	touch -d "@$epoch" "$dir"/* "$dir"
	tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
		-C "$stage/$name" -cf - compartment | gzip -n -9 > "$out/$name.tar.gz"
done

(cd "$out" && sha256sum -- *.tar.gz > SHA256SUMS)
"$tool" sign-sums -key "$key" "$out/SHA256SUMS"
cp "$key.pub" "$out/release.pub" 2>/dev/null || echo "$pub" > "$out/release.pub"
"$tool" verify-sums -pub "$out/release.pub" "$out/SHA256SUMS"

# The Linux arm64 binary runs here under qemu-user when Debian's
# qemu-user-static is installed (scripts/setup.d/60-qemu.sh).
if [[ " $targets " == *" linux/arm64 "* ]]; then
	if command -v qemu-aarch64-static >/dev/null; then
		tmp=$stage/arm64
		mkdir -p "$tmp"
		tar -xzf "$out/compartment_${version}_linux_arm64.tar.gz" -C "$tmp"
		got=$(qemu-aarch64-static "$tmp/compartment/compartment" --version)
		echo "qemu-aarch64: linux/arm64 binary says: $got"
		[ "$got" = "$version" ] || { echo "release: linux/arm64 --version printed '$got', want '$version'" >&2; exit 1; }
	else
		echo "release: qemu-aarch64-static not installed; the linux/arm64 binary was built but not run"
	fi
fi
echo "release: wrote $out"
ls -l "$out"
cat <<EOF
release: signed with key $pub (also in $out/release.pub).
  A build that does not trust this key yet (a source build, make build) updates
  to these binaries with the key given explicitly:
      compartment update --from $out/compartment_${version}_<os>_<arch>.tar.gz --key $out/release.pub
  An airgap bundle whose every file is signed by it:
      compartment setup airgap-bundle --release $out --release-key $key OUT.tar.gz
  To make every future build trust it, add it to internal/release/trusted_keys.txt (RELEASING.md).
EOF
