#!/usr/bin/env bash
# A local stand-in for the registry's python:3.11-slim-bookworm, made from Debian's own packages: a debootstrap
# bookworm root file system with Debian's Python 3.11 (`python` on the PATH as in the official image), imported into
# buildah's store. `make image` builds the Dockerfile on it where no registry image can be pulled.
#
#   infra/image/make-base.sh [TAG]       (root; needs debootstrap and buildah)
#
# The image carries a label with the digest of this script: a second run with an unchanged script keeps the
# image it finds (so CI rebuilds the base only when this recipe changes). DEBIAN_MIRROR picks another mirror.
set -euo pipefail

TAG=${1:-localhost/torres-python:3.11-bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
RECIPE=$(sha256sum "$0" | cut -d' ' -f1)

if [ "$(buildah inspect --type image --format '{{index .ImageAnnotations "org.torres.base.recipe"}}' "$TAG" 2>/dev/null)" = "$RECIPE" ]; then
  echo "base $TAG is current (recipe $RECIPE)"
  exit 0
fi

root=$(mktemp -d)
ctr=
cleanup() {
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$root"
}
trap cleanup EXIT

# minbase: dpkg, apt and the essential set only; then what the official slim image has that the Dockerfile uses.
debootstrap --variant=minbase \
  --include=python3,python3-venv,python-is-python3,ca-certificates,netbase,tzdata \
  bookworm "$root" "$MIRROR"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/* "$root"/tmp/*

ctr=$(buildah from scratch)
mnt=$(buildah mount "$ctr")
cp -a "$root"/. "$mnt"/
buildah umount "$ctr" >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env LANG=C.UTF-8 \
  --cmd python3 \
  --annotation "org.torres.base.recipe=$RECIPE" \
  "$ctr"
buildah commit --quiet "$ctr" "$TAG" >/dev/null
echo "base $TAG built (recipe $RECIPE)"
