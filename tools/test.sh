#!/usr/bin/env bash
# Set up the project's venv (if needed) and run every test: lit + FileCheck, then pytest.
# This is the README's test command and exactly what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
VENV=.venv/bin
echo "== lit =="
"$VENV/lit" -v test
echo "== pytest =="
set +e
"$VENV/pytest" -q "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: treating as failure" >&2
  exit 1
fi
exit "$rc"
