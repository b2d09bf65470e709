#!/usr/bin/env bash
# Starts three org instances on one PostgreSQL database and one bare git repository of
# skills (see README.md). Stop them with Ctrl-C.
set -euo pipefail

: "${ORG_STORE_URL:?set ORG_STORE_URL to a PostgreSQL database, e.g. postgres://org:secret@127.0.0.1:5432/org}"
here=$(cd "$(dirname "$0")" && pwd)
# The org command: ORG_BIN if set, else this checkout's (built by `npm install`), else the one on PATH.
# (Not `npx org`: outside an install that would fetch an unrelated package of that name.)
if [ -n "${ORG_BIN:-}" ]; then
  org=("$ORG_BIN")
elif [ -f "$here/../../dist/cli/main.js" ]; then
  org=(node "$here/../../bin/org.js")
elif command -v org >/dev/null; then
  org=(org)
else
  echo "run.sh: no org command: run 'npm install' at the top of this checkout (it builds dist/), or set ORG_BIN" >&2
  exit 1
fi
work=${ORG_CLUSTER_DIR:-"$here/.cluster"}
remote="$work/skills.git"
mkdir -p "$work"
if [ ! -d "$remote" ]; then
  git init --bare --quiet --initial-branch=main "$remote"
fi
export ORG_ADMIN_TOKEN=${ORG_ADMIN_TOKEN:-$(node -e "console.log(require('node:crypto').randomBytes(24).toString('hex'))")}
echo "admin token: $ORG_ADMIN_TOKEN"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
for n in 1 2 3; do
  "${org[@]}" serve --home "$work/home-$n" --port "808$n" --no-demo \
    --store "$ORG_STORE_URL" --skills-remote "$remote" --trust-proxy loopback &
  pids+=("$!")
done
wait
