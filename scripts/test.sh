#!/usr/bin/env bash
# The project's test command (see README): formatting and lints, every cargo test, then the
# qemu runner over our test cases and, when ../shared/sysy-tests exists, over the official
# functional suites, each at -O0 and -O2.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --quiet
echo "== testcases under qemu"
python3 scripts/run_tests.py --opt O0,O2 --check-symbols testcases
echo "== generator and reducer"
python3 scripts/test_tools.py
echo "== differential testing, seeds 0:300"
python3 scripts/difftest.py --seeds 0:300 --no-reduce
shared=../shared/sysy-tests
if [ -d "$shared" ]; then
  echo "== shared functional suites under qemu"
  python3 scripts/run_tests.py --no-build --opt O0,O2 --check-symbols \
    "$shared/functional" "$shared/functional2021"
else
  echo "note: $shared not found; shared suites skipped"
fi
