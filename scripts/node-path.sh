# The project runs on Node 24 (20 reached its end of life on 2026-04-30). Where the machine's
# node is older, scripts/bootstrap.sh installs the official Node 24 binary into .tools/node;
# this file puts it first on PATH, so `node`, pnpm, jest and tsx (which run the `node` on PATH)
# all run on it.
#   . scripts/node-path.sh                sourced by stack.sh, test.sh, bootstrap.sh, .ci/run
#   bash scripts/node-path.sh CMD [ARG…]  runs CMD on it (package.json's test and bench scripts)
PAY_NODE_VERSION=24.21.0
PAY_NODE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/node"
if [ -x "$PAY_NODE_DIR/bin/node" ]; then
  case ":$PATH:" in
    *":$PAY_NODE_DIR/bin:"*) ;;
    *) export PATH="$PAY_NODE_DIR/bin:$PATH" ;;
  esac
fi
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ $# -gt 0 ]; then exec "$@"; fi
