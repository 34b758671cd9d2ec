#!/usr/bin/env bash
# Docker for the SWE-Gym integration tests: installs Debian's docker.io when missing, starts the
# daemon when it is not running (vfs storage, no bridge network: every container runs with
# `--network none`), and builds the local image the embedded SWE-Gym instances run in.
#
# No registry is reachable, so the image is made from a Debian rootfs (debootstrap) holding
# python3, git and patch, plus this machine's node binary, and loaded with `docker import`.
# The build is skipped when the image already exists.
#
# Environment:
#   HARNESS_S_SWEGYM_IMAGE  image name (default harness-s/swegym-embedded:2, as the env expects)
#   DOCKERD_LOG             daemon log file (default /tmp/dockerd.log)
#   DEBIAN_MIRROR           mirror for debootstrap (default: the one apt uses)
set -euo pipefail

IMAGE="${HARNESS_S_SWEGYM_IMAGE:-harness-s/swegym-embedded:2}"
DOCKERD_LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
SUITE=bookworm

log() { printf '[docker.sh] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_docker() {
  if command -v dockerd >/dev/null 2>&1; then return; fi
  log "installing docker.io"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker.io >/dev/null
}

start_daemon() {
  if docker info >/dev/null 2>&1; then
    log "dockerd already running"
    return
  fi
  log "starting dockerd (log: $DOCKERD_LOG)"
  # setsid: the daemon outlives this script and the CI step that ran it.
  as_root setsid dockerd --storage-driver=vfs --bridge=none --iptables=false --ip-masq=false \
    >"$DOCKERD_LOG" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    if as_root docker info >/dev/null 2>&1; then
      log "dockerd is up"
      # Tests and image builds talk to the socket as this user (a throwaway CI machine).
      if ! docker info >/dev/null 2>&1; then as_root chmod 666 /var/run/docker.sock; fi
      return
    fi
    sleep 1
  done
  log "dockerd did not answer within 60 s; last lines of its log:"
  tail -n 30 "$DOCKERD_LOG" >&2 || true
  exit 1
}

# The mirror apt already uses (deb822 `URIs:` or a one-line `deb` entry), so no new host is contacted.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local found=""
  if [ -f /etc/apt/sources.list ]; then
    found=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
  fi
  if [ -z "$found" ] && ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    found=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources)
  fi
  echo "${found:-http://deb.debian.org/debian}"
}

build_image() {
  if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    log "image $IMAGE exists; skipping the build"
    return
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq debootstrap >/dev/null
  fi
  local node_binary mirror
  node_binary=$(command -v node)
  mirror=$(debian_mirror)
  # Global, so the EXIT trap still sees it after this function returns.
  rootfs=$(mktemp -d /tmp/swegym-rootfs.XXXXXX)
  trap 'as_root rm -rf "$rootfs"' EXIT
  log "debootstrap $SUITE from $mirror"
  as_root debootstrap --variant=minbase --include=python3,git,patch "$SUITE" "$rootfs" "$mirror" >/dev/null
  # The node binary's libraries (libstdc++, libgcc_s, libc) are all part of the minbase rootfs.
  as_root cp "$node_binary" "$rootfs/usr/local/bin/node"
  # Smaller image, faster containers: with the vfs driver every container copies the whole image.
  as_root rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/perl/5.*/unicore/*.txt
  # mktemp made the root directory 0700: as it is, only root could use the image.
  as_root chmod 755 "$rootfs"
  log "importing $IMAGE"
  as_root tar -C "$rootfs" -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV LANG=C.UTF-8' \
    -c 'CMD ["/bin/bash"]' - "$IMAGE" >/dev/null
  # As sandboxes run commands: as nobody.
  docker run --rm --network none --user 65534:65534 "$IMAGE" \
    sh -c 'node --version && python3 --version && git --version && patch --version | head -n 1' >&2
  log "image $IMAGE is ready ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
}

install_docker
start_daemon
build_image
