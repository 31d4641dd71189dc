#!/usr/bin/env bash
# Makes this machine ready to run the stack or the tests, from nothing: pnpm, dependencies,
# PostgreSQL and Redis (installed if absent, started if down), and the database migrations.
# Safe to run again: every step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
say() { printf '[bootstrap] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v node >/dev/null; then
  say "installing Node.js"; as_root apt-get update -qq; as_root apt-get install -y -qq nodejs npm
fi
# --- Node 24 ------------------------------------------------------------------------------------
# Where the machine's node is older than 24, the official binary (the npm registry's
# node-linux-<arch> package carries the file nodejs.org ships; npm checks its integrity) goes
# into .tools/node, and scripts/node-path.sh puts it first on PATH for every script.
. scripts/node-path.sh
if [ "$(node -p 'process.versions.node.split(".")[0] >= 24')" != true ]; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "no Node 24 package for $(uname -m)" >&2; exit 1 ;; esac
  say "installing Node $PAY_NODE_VERSION into .tools/node (this machine has $(node -v))"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$PAY_NODE_VERSION" >/dev/null && tar -xzf node-linux-*.tgz)
  rm -rf "$PAY_NODE_DIR" && mkdir -p "$(dirname "$PAY_NODE_DIR")" && mv "$tmp/package" "$PAY_NODE_DIR" && rm -rf "$tmp"
  . scripts/node-path.sh
  [ "$(node -v)" = "v$PAY_NODE_VERSION" ] || { echo "Node $PAY_NODE_VERSION did not install: node is $(node -v)" >&2; exit 1; }
fi
if [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION"; npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null
fi

# --- PostgreSQL --------------------------------------------------------------------------
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! command -v pg_ctlcluster >/dev/null; then
  say "installing PostgreSQL and Redis"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql redis-server >/dev/null
  fresh_pg=1
fi
if ! pg_up; then
  say "starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  for _ in $(seq 1 30); do pg_up && break; sleep 0.5; done
fi
if [ "${fresh_pg:-}" = 1 ]; then
  # A packaged install asks for passwords on TCP; local development and CI trust loopback.
  hba=$(ls /etc/postgresql/*/main/pg_hba.conf | head -1)
  as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main reload
fi
DB_USER=$(id -un)
if ! psql -h 127.0.0.1 -U "$DB_USER" -d postgres -tAc 'SELECT 1' >/dev/null 2>&1; then
  say "creating database role $DB_USER"
  as_root su postgres -c "psql -qc \"CREATE ROLE \\\"$DB_USER\\\" SUPERUSER LOGIN\""
fi

# --- Redis --------------------------------------------------------------------------------
if ! command -v redis-server >/dev/null; then
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq redis-server >/dev/null
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  say "starting Redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis-cli ping >/dev/null 2>&1 && break; sleep 0.2; done
fi

# --- PgBouncer, for the tests that run the stack through it in transaction pooling -----------
# (@pay/testing startPgBouncer starts its own on a private port; the package's service is unused.)
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  say "installing pgbouncer"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq pgbouncer >/dev/null
fi

# --- Chromium, for the tests of hosted pages (Debian's package; nothing downloads a browser) --
if ! command -v chromium >/dev/null; then
  say "installing chromium"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
fi

# --- PHP and Go, to run the /docs signing samples in those languages (signing-guide.test.ts) --
if ! command -v php >/dev/null || ! command -v go >/dev/null; then
  say "installing php-cli and golang-go (Debian's), for the signing samples' test"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends php-cli golang-go >/dev/null
fi

# --- kubectl, for the manifests' check (infra/k8s/validate.mjs renders them with kustomize) ----
if ! command -v kubectl >/dev/null; then
  say "installing kubectl (Debian's kubernetes-client)"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq kubernetes-client >/dev/null
fi

# --- OCR language data for receipt checks ------------------------------------------------
# English comes from the @tesseract.js-data/eng npm package; npm has no Russian package, so
# it comes from Debian (tesseract-ocr-rus; nothing is downloaded at run time).
if [ ! -s /usr/share/tesseract-ocr/5/tessdata/rus.traineddata ]; then
  say "installing Russian OCR data (tesseract-ocr-rus)"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends tesseract-ocr-rus >/dev/null
fi

# --- OCR-B font for the KYC test documents ----------------------------------------------------
# Test fixtures draw machine-readable zones in OCR-B, the font of real ones, for the MRZ reader
# to read (services/invoicing/test/kyc/fixtures.ts). Tests only: the service reads zones and never draws one.
if [ ! -s /usr/share/fonts/opentype/ocr-b/OCRB.otf ]; then
  say "installing the OCR-B font (fonts-ocr-b)"
  as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends fonts-ocr-b >/dev/null
fi

# --- Test faces for the KYC face check ------------------------------------------------------
# Five people, 11 photos each (dlib's examples, public-domain dedication), which Debian's
# libdlib19.1 ships as documentation: the package is unpacked here, not installed (that would
# pull the 100 MB libdlib-data). Tests read them from this folder (services/invoicing/test/kyc/test-faces.ts).
FACES_DIR=/var/cache/pay-test-data/dlib-faces
if [ "$(ls "$FACES_DIR"/John_Simm/*.jpg 2>/dev/null | wc -l)" -lt 11 ]; then
  say "unpacking test faces (Debian's libdlib19.1 examples)"
  tmp=$(mktemp -d)
  # Root downloads as apt's sandbox user unless told otherwise, which cannot write to $tmp.
  get() { (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" libdlib19.1 >/dev/null); }
  get || { as_root apt-get update -qq; get; }
  dpkg -x "$tmp"/libdlib19.1_*.deb "$tmp/x"
  as_root mkdir -p "$FACES_DIR"
  as_root cp -r "$tmp/x/usr/share/doc/libdlib19.1/examples/johns/." "$FACES_DIR/"
  rm -rf "$tmp"
fi

# --- Dependencies and schema ----------------------------------------------------------------
say "installing dependencies"
pnpm install --frozen-lockfile --reporter=silent
say "applying migrations"
pnpm --silent db:migrate
