# A headless compartment: the MCP stdio server and the CLI, nothing else.
# No port is exposed (stdio only), it runs as an unprivileged user, and the
# vault lives on a bind mount at /data. Create the vault on the host first
# (compartment init prompts for the passphrase), then:
#
#   docker build -t compartment .
#   docker run -i --rm --network none -v ~/.compartment:/data \
#       -e COMPARTMENT_PASSPHRASE compartment serve
#
# The image is FROM scratch: one static binary (the bundled embedding model
# is inside it; ONNX models are not available without cgo), a passwd entry
# for the user, and /data. scripts/container.sh builds the same final stage
# from a locally built binary, so no registry is needed for it.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=container
RUN mkdir -p /out/etc /out/data /out/tmp && chmod 1777 /out/tmp \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/compartment ./cmd/compartment \
 && printf 'compartment:x:65532:65532:compartment:/data:/compartment\n' > /out/etc/passwd \
 && printf 'compartment:x:65532:\n' > /out/etc/group

# --- final stage (scripts/container.sh builds from here down) ---
FROM scratch
COPY --from=build --chown=65532:65532 /out/ /
USER 65532:65532
ENV HOME=/data \
    COMPARTMENT_VAULT=/data/memory.vault \
    COMPARTMENT_EMBED_DAEMON=0
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/compartment"]
CMD ["serve"]
