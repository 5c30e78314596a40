#!/usr/bin/env python3
"""Exits 0 when a run's stdout and exit code give the expected judge output.

    scripts/judge.py STDOUT_FILE EXIT_CODE EXPECTED_FILE
"""

import sys
from pathlib import Path

import harness

if len(sys.argv) != 4:
    sys.exit(__doc__)
stdout, code, expected = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
got = harness.judge_output(stdout.read_bytes() if stdout.exists() else b"", code)
sys.exit(0 if harness.same_output(got, expected.read_bytes()) else 1)
