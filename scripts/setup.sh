#!/usr/bin/env bash
# Gets a clean clone ready: checks for the Rust toolchain and the host C compiler (the
# bench's qemu plugin is built with it), installs qemu-arm, the ARM cross compilers and
# LLVM 16 (whose llvm-mca models the Cortex-A72 for the bench) when they are missing (Debian
# packages qemu-user, gcc-arm-linux-gnueabihf, g++-arm-linux-gnueabihf, llvm-16), builds the
# compiler (target/release/compiler) and the runtime library (target/sysy/libsysy.a).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
for tool in cargo rustc; do
  if ! command -v "$tool" >/dev/null; then
    echo "setup: $tool not found: install the Rust toolchain (https://rustup.rs, or your system's rustup package)" >&2
    missing=1
  fi
done
if ! command -v cc >/dev/null && ! command -v gcc >/dev/null; then
  echo "setup: no host C compiler (cc or gcc) found: install gcc; the bench builds its qemu plugin with it" >&2
  missing=1
fi
[ "$missing" -eq 0 ] || exit 1
need=()
command -v qemu-arm >/dev/null || need+=(qemu-user)
command -v arm-linux-gnueabihf-gcc >/dev/null || need+=(gcc-arm-linux-gnueabihf)
command -v arm-linux-gnueabihf-g++ >/dev/null || need+=(g++-arm-linux-gnueabihf)
command -v llvm-mca-16 >/dev/null || need+=(llvm-16)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "setup: building the compiler (cargo build --release; about a minute the first time)"
cargo build --release
echo "setup: building the runtime library"
python3 -c 'import sys; sys.path.insert(0, "scripts"); import harness; print(harness.build_runtime())'
