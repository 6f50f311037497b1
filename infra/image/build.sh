#!/usr/bin/env bash
# Build the Dockerfile with buildah (no daemon; `--isolation chroot` builds as root where OCI runtimes cannot run):
#
#   infra/image/build.sh                  on a base made here from Debian's packages (infra/image/make-base.sh)
#   PYTHON_IMAGE=python:3.11-slim-bookworm infra/image/build.sh    on the registry's image, where it can be pulled
#
# IMAGE names the result (default torres:local, the name infra/compose.yaml uses), in Docker's format (OCI's has
# no HEALTHCHECK). Layers are cached in buildah's
# store and reused until the locks, the sources or the Dockerfile change. PIP_CERT (default: the system CA bundle)
# reaches pip inside the build as the secret `pip-cert`, for hosts behind a TLS-inspecting proxy; it is never
# written into a layer. Prints the image's size and how many distributions it holds.
set -euo pipefail
cd "$(dirname "$0")/../.."

IMAGE=${IMAGE:-torres:local}
if [ -z "${PYTHON_IMAGE:-}" ]; then
  PYTHON_IMAGE=localhost/torres-python:3.11-bookworm
  infra/image/make-base.sh "$PYTHON_IMAGE"
fi
CERT=${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}
secret=()
[ -s "$CERT" ] && secret=(--secret "id=pip-cert,src=$CERT")

buildah bud --isolation chroot --layers --pull=missing --format docker "${secret[@]}" \
  --build-arg "PYTHON_IMAGE=$PYTHON_IMAGE" --tag "$IMAGE" --file Dockerfile .

size=$(buildah images --format '{{.Size}}' "$IMAGE" | head -n 1)
ctr=$(buildah from --pull=never "$IMAGE")
trap 'buildah rm "$ctr" >/dev/null' EXIT
count=$(buildah run --isolation chroot "$ctr" -- python -c \
  'import importlib.metadata as m; print(len({d.metadata["Name"].lower() for d in m.distributions()}))')
echo "image $IMAGE on $PYTHON_IMAGE: $size, $count Python distributions"
