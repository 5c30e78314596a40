#!/usr/bin/env bash
# The project's test command (see README): formatting and lints, then every cargo test.
# The shared contest suites in ../shared/sysy-tests are used when present.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --quiet
