#!/usr/bin/env bash
# Builds the container image of the Dockerfile without a registry: the
# static binary is built here (CGO_ENABLED=0), laid out as the Dockerfile's
# build stage lays out /out, and the Dockerfile's final stage (FROM scratch,
# which needs nothing pulled) is built from it with podman or buildah.
#   scripts/container.sh [IMAGE]     (default compartment:local)
# CONTAINER_STORAGE=DIR keeps podman's images in DIR (vfs driver, no
# mounts needed), as the test does inside its network namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-compartment:local}
tool=""
for t in podman buildah; do
	if command -v "$t" >/dev/null; then tool=$t; break; fi
done
[ -n "$tool" ] || { echo "container: neither podman nor buildah is installed" >&2; exit 2; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/out/etc" "$ctx/out/data" "$ctx/out/tmp"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION:-container}" -o "$ctx/out/compartment" ./cmd/compartment
printf 'compartment:x:65532:65532:compartment:/data:/compartment\n' > "$ctx/out/etc/passwd"
printf 'compartment:x:65532:\n' > "$ctx/out/etc/group"
# The Dockerfile from its final stage on, copying from the context instead
# of the build stage.
sed -n '/^FROM scratch/,$p' Dockerfile | sed 's|COPY --from=build |COPY |; s| /out/ / *$| out/ /|' > "$ctx/Containerfile"
grep -q '^COPY --chown=65532:65532 out/ /$' "$ctx/Containerfile" || { echo "container: the Dockerfile's final stage changed shape; update scripts/container.sh" >&2; exit 1; }
chmod 1777 "$ctx/out/tmp"
opts=()
if [ -n "${CONTAINER_STORAGE:-}" ]; then
	opts=(--root "$CONTAINER_STORAGE/root" --runroot "$CONTAINER_STORAGE/run" --storage-driver vfs)
	[ "$tool" = podman ] && opts+=(--cgroup-manager cgroupfs --events-backend none)
	# In a user namespace that maps only uid 0 (the test's), files cannot
	# be given to uid 65532: the image then differs only in who owns /data.
	if [ "$(cat /proc/self/uid_map 2>/dev/null | awk '{print $3}')" = 1 ]; then
		sed -i 's|^COPY --chown=65532:65532 |COPY |' "$ctx/Containerfile"
	fi
fi
case $tool in
podman) podman "${opts[@]}" build --network none -t "$image" -f "$ctx/Containerfile" "$ctx" ;;
buildah) buildah "${opts[@]}" bud --network none -t "$image" -f "$ctx/Containerfile" "$ctx" ;;
esac
echo "container: built $image with $tool"
