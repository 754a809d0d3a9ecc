#!/usr/bin/env bash
# Points oliver006/redis_exporter at Redis and at limitkv, after the same
# traffic, and compares the metric names (and label sets) it exports for
# each: the dashboards made for Redis read limitkv only if they match.
#
#   REDIS_EXPORTER=/path/to/redis_exporter bench/redis_exporter_names.sh
#   REDIS_EXPORTER_SRC=/path/to/redis_exporter/checkout bench/redis_exporter_names.sh
#
# redis_exporter is not in the Go module proxy this project uses, so it is
# not in the default test suite: give a binary, or a source checkout that
# `go build` can build (its dependencies come from the proxy). It also
# compares limitkv's own --metrics-addr endpoint: every redis_* name there
# must be one redis_exporter exports for Redis. PORT_BASE (default 18150)
# picks the six ports used on 127.0.0.1. Exits 1 on a difference.
set -euo pipefail

base=${PORT_BASE:-18150}
rport=$base lport=$((base + 1)) mport=$((base + 2)) erport=$((base + 3)) elport=$((base + 4))
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

exporter=${REDIS_EXPORTER:-}
if [[ -z $exporter ]]; then
	if [[ -z ${REDIS_EXPORTER_SRC:-} ]]; then
		echo "set REDIS_EXPORTER (a binary) or REDIS_EXPORTER_SRC (a checkout)" >&2
		exit 2
	fi
	(cd "$REDIS_EXPORTER_SRC" && go build -o "$tmp/redis_exporter" .)
	exporter=$tmp/redis_exporter
fi
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && go build -o "$tmp/limitkv" ./cmd/limitkv)

cd "$tmp"
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >redis.log 2>&1 &
pids+=($!)
./limitkv --port "$lport" --save '' --metrics-addr "127.0.0.1:$mport" >limitkv.log 2>&1 &
pids+=($!)
for p in "$rport" "$lport"; do
	for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

# The same traffic on both: hits, misses, an expiring key, errors of two
# codes, a rejected command, a subcommand, a rate-limit check.
for p in "$rport" "$lport"; do
	r() { redis-cli -p "$p" "$@" >/dev/null 2>&1 || true; }
	r config resetstat
	r set a 1
	r set b 2 ex 100
	r get a
	r get nosuch
	r incr a x
	r lpush a x
	r nosuchcommand
	r client setname probe
	r select 3
	r hset h f v
	r rl.check rl 1000 60000 5 m # limitkv's own; an unknown command on Redis
done

"$exporter" -redis.addr "redis://127.0.0.1:$rport" -web.listen-address "127.0.0.1:$erport" >exporter-redis.log 2>&1 &
pids+=($!)
"$exporter" -redis.addr "redis://127.0.0.1:$lport" -web.listen-address "127.0.0.1:$elport" >exporter-limitkv.log 2>&1 &
pids+=($!)
sleep 1
scrape() { curl -sf "http://127.0.0.1:$1/metrics"; }
scrape "$erport" >redis.prom
scrape "$elport" >limitkv.prom
scrape "$mport" >own.prom

names() { grep -v '^#' "$1" | sed 's/[{ ].*//' | sort -u; }
# name{label names}: the values of the labels (commands, latencies,
# ids) are left out.
series() { grep -v '^#' "$1" | sed -E 's/ [^ ]+$//; s/="[^"]*"//g' | sort -u; }

status=0
names redis.prom >n.redis
names limitkv.prom >n.limitkv
echo "redis_exporter: $(wc -l <n.redis) names against Redis, $(wc -l <n.limitkv) against limitkv"
if ! diff n.redis n.limitkv >names.diff; then
	echo "names that differ (< only for Redis, > only for limitkv):"
	cat names.diff
	status=1
fi
series redis.prom >s.redis
series limitkv.prom >s.limitkv
if ! diff s.redis s.limitkv >series.diff; then
	echo "label sets that differ:"
	cat series.diff
	status=1
fi
sed -E 's/_(bucket|sum|count)$//' n.redis | sort -u >n.redis.base
names own.prom | sed -E 's/_(bucket|sum|count)$//' | sort -u >n.own
extra=$(comm -23 n.own n.redis.base | grep -v '^limitkv_' || true)
echo "limitkv --metrics-addr: $(wc -l <n.own) names, $(comm -12 n.own n.redis.base | wc -l) of them redis_exporter's"
if [[ -n $extra ]]; then
	echo "redis_* names of --metrics-addr that redis_exporter does not export for Redis:"
	echo "$extra"
	status=1
fi
exit $status
