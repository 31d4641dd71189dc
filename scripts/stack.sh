#!/usr/bin/env bash
# Brings the whole stack up on this machine and prints its URLs:
#   bash scripts/stack.sh          install, migrate, build, start invoicing, crypto (its API and its
#                                  workers, two processes as in Kubernetes) and the webhook worker
#   bash scripts/stack.sh devnet   the same, with live USDT and USDC on local Ethereum and BSC devnets (started
#                                  first; settings in .stack/devnet.env; see README "Going live on Ethereum/BSC")
#   bash scripts/stack.sh stop     stop them (and the devnets)
#   bash scripts/stack.sh status   show what runs
#   bash scripts/stack.sh --tbank-emulator   also start the T-Bank protocol emulator (packages/tbank-emulator)
#                                  and make it the live acquirer: LIVE_PAYMENT_PROVIDER=tbank, TBANK_API_URL at it
# Beside the services it runs what production has around them, from npm: a dev mailbox (maildev:
# SMTP for batch e-mails, a web inbox to read them and click their payment links) and an
# S3-compatible server (s3rver) holding receipt files (RECEIPTS_STORAGE=s3), as in Kubernetes.
# It runs what the image runs: the compiled bundles (`pnpm build`, services/*/dist/main.js) under
# plain node, not tsx. Logs go to .stack/logs/<service>.log. Settings come from the environment
# (see README); the live chain's (EVM_RPC_URL_*, USDT_CONTRACT_*, USDC_CONTRACT_*, DEPOSIT_XPUB,
# CONFIRMATIONS_*) pass through to crypto like any other. The hot wallet's key is the exception: a
# file (PAYOUT_PRIVATE_KEY_FILE; with `devnet`, the devnet's key in $STACK_STATE/devnet-payout-key,
# mode 0600) named to crypto-workers alone, never to the crypto API, invoicing or the webhook worker.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node 24: the project's own (.tools/node, from bootstrap.sh) where the machine's is older.
. scripts/node-path.sh
# STACK_STATE: another folder for pid files, logs and data, so a second stack (a test's) never touches this one.
STATE=${STACK_STATE:-.stack}
mkdir -p "$STATE/logs"

CMD=up
TBANK_EMULATOR=
for arg in "$@"; do
  case "$arg" in
    --tbank-emulator) TBANK_EMULATOR=1 ;;
    *) CMD=$arg ;;
  esac
done

SERVICES=(invoicing crypto crypto-workers webhook-worker)
declare -A PORTS=([invoicing]=${INVOICING_PORT:-3001} [crypto]=${CRYPTO_PORT:-3002} [webhook-worker]=${WORKER_PORT:-3003} [tbank-emulator]=${TBANK_EMULATOR_PORT:-3004}
  [crypto-workers]=${CRYPTO_WORKERS_PORT:-3005} [maildev]=${MAILDEV_WEB_PORT:-1080} [s3rver]=${S3RVER_PORT:-4568})
# crypto-workers runs crypto's bundle: the workers-only process (SERVE_API=false), as Kubernetes runs it.
declare -A BUNDLES=([crypto-workers]=crypto)
# The hot wallet's key file, taken out of the environment every process inherits: crypto-workers alone is given it.
PAYOUT_KEY_FILE=${PAYOUT_PRIVATE_KEY_FILE:-}
unset PAYOUT_PRIVATE_KEY_FILE
MAILDEV_SMTP_PORT=${MAILDEV_SMTP_PORT:-1025}
# stop and status look after the emulator too, whichever flags they were given; up waits for it when started.
ALL=("${SERVICES[@]}" tbank-emulator maildev s3rver)
[ -z "$TBANK_EMULATOR" ] || SERVICES+=(tbank-emulator)

running() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

stop() {
  for s in "${ALL[@]}"; do
    if running "$s"; then
      { kill -TERM "$(cat "$STATE/$s.pid")" 2>/dev/null && echo "stopping $s"; } || true
    fi
  done
  # Each service bounds its own shutdown by SHUTDOWN_TIMEOUT_MS; wait that long and 2 s more,
  # then kill what is left, so "stopped" is never said of a process that still runs.
  local deadline=$(( $(date +%s) + ${SHUTDOWN_TIMEOUT_MS:-10000} / 1000 + 2 ))
  for s in "${ALL[@]}"; do
    while running "$s" && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
    if running "$s"; then
      echo "$s did not stop within its shutdown timeout; killing it"
      kill -KILL "$(cat "$STATE/$s.pid")" 2>/dev/null || true
    fi
    rm -f "$STATE/$s.pid"
  done
}

case "$CMD" in
  stop) stop; [ -f "$STATE/devnet.pid" ] && pnpm --silent exec tsx scripts/devnet.ts stop && echo "stopping devnet"; exit 0 ;;
  status)
    for s in "${ALL[@]}"; do
      if running "$s"; then echo "$s: running on http://127.0.0.1:${PORTS[$s]}"; else echo "$s: stopped"; fi
    done
    exit 0 ;;
  up|devnet) ;;
  *) echo "usage: $0 [up|devnet|stop|status] [--tbank-emulator]" >&2; exit 2 ;;
esac

# STACK_SKIP_PREPARE=1: dependencies, migrations and bundles are in place already (a test that
# built them once for its whole run starts a stack of its own).
[ "${STACK_SKIP_PREPARE:-}" = 1 ] || { bash scripts/bootstrap.sh && . scripts/node-path.sh; }
stop >/dev/null
if [ "$CMD" = devnet ]; then
  DEVNET_OUT=$(pnpm --silent exec tsx scripts/devnet.ts start) || { echo "$DEVNET_OUT"; echo "devnet failed to start; see $STATE/logs/devnet-*.log"; exit 1; }
  set -a; . "$STATE/devnet.env"; set +a
  # The devnet's hot wallet key, written by devnet.ts beside its settings (0600), unless the environment named another.
  PAYOUT_KEY_FILE=${PAYOUT_KEY_FILE:-$(cd "$STATE" && pwd)/devnet-payout-key}
fi
# Always rebuilt (a fraction of a second), so the stack never runs stale bundles.
[ "${STACK_SKIP_PREPARE:-}" = 1 ] || pnpm --silent build >"$STATE/logs/build.log" 2>&1 || { cat "$STATE/logs/build.log"; echo "build failed"; exit 1; }

# The key that encrypts HMAC secrets at rest must stay the same across restarts, or stored
# secrets become unreadable: generate it once per checkout unless the environment sets one.
if [ -z "${SECRETS_KEY:-}" ]; then
  [ -f "$STATE/secrets-key" ] || node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))" > "$STATE/secrets-key"
  export SECRETS_KEY=$(cat "$STATE/secrets-key")
fi

# The dev mailbox and the receipts bucket, started before the services that use them.
mkdir -p "$STATE/mail"
nohup node_modules/.bin/maildev --ip 127.0.0.1 --smtp "$MAILDEV_SMTP_PORT" --web-ip 127.0.0.1 --web "${PORTS[maildev]}" --mail-directory "$STATE/mail" >"$STATE/logs/maildev.log" 2>&1 &
echo $! >"$STATE/maildev.pid"
mkdir -p "$STATE/s3"
nohup node_modules/.bin/s3rver --directory "$STATE/s3" --address 127.0.0.1 --port "${PORTS[s3rver]}" --configure-bucket receipts >"$STATE/logs/s3rver.log" 2>&1 &
echo $! >"$STATE/s3rver.pid"
# Batch e-mails go to the mailbox; receipt files to the bucket (s3rver's own access key), unless the environment says otherwise.
export SMTP_HOST=${SMTP_HOST:-127.0.0.1} SMTP_PORT=${SMTP_PORT:-$MAILDEV_SMTP_PORT}
export RECEIPTS_STORAGE=${RECEIPTS_STORAGE:-s3} S3_ENDPOINT=${S3_ENDPOINT:-http://127.0.0.1:${PORTS[s3rver]}} S3_BUCKET=${S3_BUCKET:-receipts}
export S3_ACCESS_KEY_ID=${S3_ACCESS_KEY_ID:-S3RVER} S3_SECRET_ACCESS_KEY=${S3_SECRET_ACCESS_KEY:-S3RVER}

# Local development: webhooks may point at this machine.
export ALLOW_PRIVATE_WEBHOOK_URLS=${ALLOW_PRIVATE_WEBHOOK_URLS:-true}

# Live payments through the acquirer: the settings (README, "Going live with an acquirer") pass
# through to the services from the environment; --tbank-emulator points them at the emulator.
if [ -n "$TBANK_EMULATOR" ]; then
  export TBANK_TERMINAL_KEY=${TBANK_TERMINAL_KEY:-EmulatorTerminalDEMO} TBANK_PASSWORD=${TBANK_PASSWORD:-emulator-password}
  export LIVE_PAYMENT_PROVIDER=tbank TBANK_API_URL="http://127.0.0.1:${PORTS[tbank-emulator]}/v2"
  # A development tool, run from its source (it is not part of the image).
  TBANK_EMULATOR_PORT=${PORTS[tbank-emulator]} nohup node_modules/.bin/tsx packages/tbank-emulator/src/main.ts >"$STATE/logs/tbank-emulator.log" 2>&1 &
  echo $! >"$STATE/tbank-emulator.pid"
fi

# The image's V8 settings (infra/Dockerfile's ENV NODE_OPTIONS line), so a bundle here runs as it does there.
IMAGE_NODE_OPTIONS=$(sed -n 's/^ENV NODE_OPTIONS="\(.*\)"$/\1/p' infra/Dockerfile)
[ -n "$IMAGE_NODE_OPTIONS" ] || { echo "infra/Dockerfile has no ENV NODE_OPTIONS=\"...\" line" >&2; exit 1; }

# start NAME [VAR=value ...]: its bundle on its port, with these settings over the environment's.
start() {
  local name=$1; shift
  env PORT="${PORTS[$name]}" NODE_OPTIONS="$IMAGE_NODE_OPTIONS" "$@" nohup node "services/${BUNDLES[$name]:-$name}/dist/main.js" >"$STATE/logs/$name.log" 2>&1 &
  echo $! >"$STATE/$name.pid"
}

# wait_ready NAME [PATH]: until http://127.0.0.1:<its port><PATH> (default /readyz) answers 2xx, for at
# most STACK_READY_TIMEOUT seconds (90: a loaded machine takes a while to start a bundle).
wait_ready() {
  local url="http://127.0.0.1:${PORTS[$1]}${2:-/readyz}" deadline=$(( $(date +%s) + ${STACK_READY_TIMEOUT:-90} ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    curl -fsS --max-time 5 "$url" >/dev/null 2>&1 && return 0
    running "$1" || { echo "$1 failed to start; last log lines:"; tail -20 "$STATE/logs/$1.log"; stop; exit 1; }
    sleep 0.2
  done
  curl -fsS --max-time 5 "$url" >/dev/null 2>&1 || { echo "$1 is not ready after ${STACK_READY_TIMEOUT:-90} s; see $STATE/logs/$1.log"; stop; exit 1; }
}
wait_ready maildev /healthz
wait_ready s3rver /

# The queue dashboard (/console/queues) opens only for merchants in CONSOLE_OPERATORS, read when
# invoicing starts. Unless the environment names them, the stack keeps an operator merchant of
# its own (registered through crypto once, its live key in .stack/operator-key) and names it.
ensure_operator() {
  local crypto="http://127.0.0.1:${PORTS[crypto]}"
  if [ -f "$STATE/operator-key" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "$crypto/api/v1/merchants/profile" -H "X-Api-Key: $(cat "$STATE/operator-key")")" = 200 ]; then
    return
  fi
  curl -fsS "$crypto/api/v1/merchants/register" -H 'Content-Type: application/json' \
    -d "{\"companyName\":\"Stack operator\",\"email\":\"operator-$(date +%s)-$RANDOM@stack.local\",\"address\":\"this machine\"}" |
    node -e 'let s="";process.stdin.on("data",(c)=>(s+=c)).on("end",()=>{const d=JSON.parse(s).data;const fs=require("fs");fs.writeFileSync(process.argv[1]+"/operator-id",d.merchantId);fs.writeFileSync(process.argv[1]+"/operator-key",d.apiKey.apiKey,{mode:0o600})})' "$STATE"
}

# crypto first: the operator merchant is registered through it before invoicing starts. Its API
# runs no workers and never sees the hot wallet's key (it would refuse to start with it); the
# workers-only process serves probes and metrics alone and holds the key, when there is one.
start crypto RUN_WORKERS=false
# Its PUBLIC_URL is the API's: the links in what it sends (webhook events) name the API, not this process.
start crypto-workers SERVE_API=false RUN_WORKERS=true PUBLIC_URL="${PUBLIC_URL:-http://127.0.0.1:${PORTS[crypto]}}" ${PAYOUT_KEY_FILE:+PAYOUT_PRIVATE_KEY_FILE=$PAYOUT_KEY_FILE}
wait_ready crypto
wait_ready crypto-workers
if [ -z "${CONSOLE_OPERATORS:-}" ]; then
  ensure_operator
  export CONSOLE_OPERATORS=$(cat "$STATE/operator-id")
  OPERATOR_NOTE="sign in to the console with the key in $STATE/operator-key (the stack's operator merchant)"
else
  OPERATOR_NOTE="sign in to the console with a key of a merchant in CONSOLE_OPERATORS"
fi
# The console reads crypto balances, transactions and withdrawals from this stack's crypto API.
export CRYPTO_BASE_URL="http://127.0.0.1:${PORTS[crypto]}"
for s in invoicing webhook-worker; do start "$s"; done
for s in invoicing webhook-worker; do wait_ready "$s"; done
[ -z "$TBANK_EMULATOR" ] || wait_ready tbank-emulator

KEY_NOTE="no hot wallet key"
[ -z "$PAYOUT_KEY_FILE" ] || KEY_NOTE="the hot wallet's key from $PAYOUT_KEY_FILE"
cat <<URLS

The stack is up:
  invoicing       http://127.0.0.1:${PORTS[invoicing]}       (base_url; docs at /docs; web console at /console)
  crypto          http://127.0.0.1:${PORTS[crypto]}       (crypto_base_url; docs at /docs)
  crypto-workers  http://127.0.0.1:${PORTS[crypto-workers]}/readyz   (withdrawals, chain watcher, outbox; $KEY_NOTE)
  webhook-worker  http://127.0.0.1:${PORTS[webhook-worker]}/readyz   (metrics at /metrics)
  queue dashboard http://127.0.0.1:${PORTS[invoicing]}/console/queues: $OPERATOR_NOTE
  mailbox         http://127.0.0.1:${PORTS[maildev]}       (batch e-mails: SMTP 127.0.0.1:$MAILDEV_SMTP_PORT; open one, click its payment link)
  receipts (S3)   http://127.0.0.1:${PORTS[s3rver]}       (s3rver, bucket receipts, files in $STATE/s3)

Logs: $STATE/logs/   Stop: bash scripts/stack.sh stop
URLS
if [ -n "$TBANK_EMULATOR" ]; then
  cat <<EMU
  tbank-emulator  http://127.0.0.1:${PORTS[tbank-emulator]}/v2   (live acquirer: LIVE_PAYMENT_PROVIDER=tbank, terminal $TBANK_TERMINAL_KEY;
                  pay a live invoice at its qrPayload / originalPaymentUrl, or POST /control/payments/{PaymentId}/pay)
EMU
fi
[ -z "${DEVNET_OUT:-}" ] || printf '\n%s\n' "$DEVNET_OUT"
