#!/usr/bin/env bash
# Runs every test against the machine's real PostgreSQL and Redis (a separate test database).
# Ends with the line `N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# On Node 24: .tools/node where bootstrap installed it (the machine's node is older).
. scripts/node-path.sh
exec pnpm test "$@"
