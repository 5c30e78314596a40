#!/usr/bin/env bash
# Installs the tools the tests need when they are missing: qemu-arm and the ARM cross
# compilers (Debian packages qemu-user, gcc-arm-linux-gnueabihf, g++-arm-linux-gnueabihf).
set -euo pipefail
need=()
command -v qemu-arm >/dev/null || need+=(qemu-user)
command -v arm-linux-gnueabihf-gcc >/dev/null || need+=(gcc-arm-linux-gnueabihf)
command -v arm-linux-gnueabihf-g++ >/dev/null || need+=(g++-arm-linux-gnueabihf)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
