#!/usr/bin/env bash
# Brings the whole stack up on this machine and prints its URLs:
#   bash scripts/stack.sh          install, migrate, build, start invoicing, crypto and the webhook worker
#   bash scripts/stack.sh stop     stop them
#   bash scripts/stack.sh status   show what runs
#   bash scripts/stack.sh --tbank-emulator   also start the T-Bank protocol emulator (packages/tbank-emulator)
#                                  and make it the live acquirer: LIVE_PAYMENT_PROVIDER=tbank, TBANK_API_URL at it
# It runs what the image runs: the compiled bundles (`pnpm build`, services/*/dist/main.js) under
# plain node, not tsx. Logs go to .stack/logs/<service>.log. Settings come from the environment
# (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
STATE=.stack
mkdir -p "$STATE/logs"

CMD=up
TBANK_EMULATOR=
for arg in "$@"; do
  case "$arg" in
    --tbank-emulator) TBANK_EMULATOR=1 ;;
    *) CMD=$arg ;;
  esac
done

SERVICES=(invoicing crypto webhook-worker)
declare -A PORTS=([invoicing]=${INVOICING_PORT:-3001} [crypto]=${CRYPTO_PORT:-3002} [webhook-worker]=${WORKER_PORT:-3003} [tbank-emulator]=${TBANK_EMULATOR_PORT:-3004})
# stop and status look after the emulator too, whichever flags they were given; up waits for it when started.
ALL=("${SERVICES[@]}" tbank-emulator)
[ -z "$TBANK_EMULATOR" ] || SERVICES+=(tbank-emulator)

running() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

stop() {
  for s in "${ALL[@]}"; do
    if running "$s"; then
      kill -TERM "$(cat "$STATE/$s.pid")" && echo "stopping $s"
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
  stop) stop; exit 0 ;;
  status)
    for s in "${ALL[@]}"; do
      if running "$s"; then echo "$s: running on http://127.0.0.1:${PORTS[$s]}"; else echo "$s: stopped"; fi
    done
    exit 0 ;;
  up) ;;
  *) echo "usage: $0 [up|stop|status] [--tbank-emulator]" >&2; exit 2 ;;
esac

bash scripts/bootstrap.sh
stop >/dev/null
# Always rebuilt (a fraction of a second), so the stack never runs stale bundles.
pnpm --silent build >"$STATE/logs/build.log" 2>&1 || { cat "$STATE/logs/build.log"; echo "build failed"; exit 1; }

# The key that encrypts HMAC secrets at rest must stay the same across restarts, or stored
# secrets become unreadable: generate it once per checkout unless the environment sets one.
if [ -z "${SECRETS_KEY:-}" ]; then
  [ -f "$STATE/secrets-key" ] || node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))" > "$STATE/secrets-key"
  export SECRETS_KEY=$(cat "$STATE/secrets-key")
fi

# Local development: webhooks may point at this machine (decisions.md §7).
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

for s in invoicing crypto webhook-worker; do
  PORT=${PORTS[$s]} nohup node "services/$s/dist/main.js" >"$STATE/logs/$s.log" 2>&1 &
  echo $! >"$STATE/$s.pid"
done

for s in "${SERVICES[@]}"; do
  url="http://127.0.0.1:${PORTS[$s]}"
  for _ in $(seq 1 100); do
    curl -fsS "$url/readyz" >/dev/null 2>&1 && break
    running "$s" || { echo "$s failed to start; last log lines:"; tail -20 "$STATE/logs/$s.log"; stop; exit 1; }
    sleep 0.2
  done
  curl -fsS "$url/readyz" >/dev/null 2>&1 || { echo "$s is not ready; see $STATE/logs/$s.log"; stop; exit 1; }
done

cat <<URLS

The stack is up:
  invoicing       http://127.0.0.1:${PORTS[invoicing]}       (base_url; docs at /docs; web console at /console)
  crypto          http://127.0.0.1:${PORTS[crypto]}       (crypto_base_url; docs at /docs)
  webhook-worker  http://127.0.0.1:${PORTS[webhook-worker]}/readyz   (metrics at /metrics)

Logs: $STATE/logs/   Stop: bash scripts/stack.sh stop
URLS
if [ -n "$TBANK_EMULATOR" ]; then
  cat <<EMU
  tbank-emulator  http://127.0.0.1:${PORTS[tbank-emulator]}/v2   (live acquirer: LIVE_PAYMENT_PROVIDER=tbank, terminal $TBANK_TERMINAL_KEY;
                  pay a live invoice at its qrPayload / originalPaymentUrl, or POST /control/payments/{PaymentId}/pay)
EMU
fi
