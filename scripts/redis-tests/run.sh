#!/usr/bin/env bash
# Runs Redis 7.0.15's own test suite (its Tcl harness, unchanged) with
# limitkv standing in as src/redis-server, and optionally with the real
# redis-server too, and prints each unit's counts side by side.
#
#   scripts/redis-tests/run.sh [options] [unit ...]
#
#   unit             a test unit as runtest's --single takes it, e.g.
#                    unit/info-command unit/type/string; none: the whole suite
#   --cluster-units  the units of tests/unit that test cluster mode (they
#                    start their own small clusters): unit/cluster,
#                    unit/cluster-scripting, unit/cluster/misc,
#                    unit/cluster/links, unit/cluster/announced-endpoints
#                    (7.0.15's test_helper.tcl leaves the last out of the
#                    whole suite; it runs with --single all the same).
#                    unit/cluster/slot-ownership, multi-slot-operations,
#                    scripting, cli and hostnames are Redis 7.2's: not in
#                    the 7.0.15 tree
#   --cluster-suite  instead of runtest, the cluster suite of tests/cluster
#                    through ./runtest-cluster, which starts 20 instances of
#                    src/redis-server itself and runs tests/cluster/tests/*.tcl
#                    against them. Units are then the suite's files (00-base,
#                    04-resharding, ...): each given one runs in its own
#                    runtest-cluster; none: the whole suite in one, as Redis
#                    runs it, its counts split by file. A test that fails
#                    ends its file (the harness jumps to the next one), so
#                    the later tests of that file do not run: compare each
#                    file's ok count with the real redis-server's.
#   --cache DIR      where Redis's source tree is kept
#                    (default $REDIS_TESTS_CACHE or ~/.cache/limitkv-redis-tests)
#   --with-redis     also run each unit with Debian's /usr/bin/redis-server
#   --redis-only     run only with the real redis-server
#   --clients N      runtest's --clients (default 1; 2 at most on a 2-core box)
#   --timeout S      seconds a unit may take before it is stopped (default
#                    900; 5400 for the whole cluster suite)
#   --drop NAME      (repeatable) limitkv only: take NAME's lines out of the
#                    config file the harness writes before limitkv reads it,
#                    through a wrapper at src/redis-server. For directives
#                    limitkv refuses (tests/assets/default.conf has three),
#                    to see what fails next; the tests that need the
#                    directive then fail for that reason.
#   -- ARGS          more arguments for runtest (e.g. --tags -slow)
#
# The source comes from Debian's archive only: the redis source package's
# upstream tarball (apt-get source --download-only, after adding deb-src
# lines if there are none), the only network access. Debian's redis-cli,
# redis-benchmark, redis-check-rdb, redis-check-aof and redis-sentinel are
# put beside the server binary, as the harness calls them from src/.
# Logs: $CACHE/logs/<binary>/<unit>.log (the cluster suite's:
# cluster_<file>.log, or cluster_all.log); each unit runs in its own
# runtest, so its counts are its own. The cluster suite's per-file counts
# are ok/failed/error/-: a failed assertion, an error that ended the file
# (or a test that never finished: a crash or the timeout), and no skips
# (runtest-cluster has none). Run as root, each runtest has a network
# namespace of its own (unshare -n), so that two runs (say limitkv's and
# redis-server's, from two shells) can go side by side.
#
# Examples:
#   scripts/redis-tests/run.sh --with-redis --cluster-units
#   scripts/redis-tests/run.sh --with-redis --cluster-suite
#   scripts/redis-tests/run.sh --cluster-suite 00-base 08-update-msg
set -euo pipefail

REDIS_VERSION=7.0.15
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${REDIS_TESTS_CACHE:-$HOME/.cache/limitkv-redis-tests}
clients=1
unit_timeout=
cluster_suite=0
with_redis=0
run_limitkv=1
units=()
extra=()
drop=()
while [ $# -gt 0 ]; do
	case $1 in
	--cache) cache=$2; shift 2 ;;
	--with-redis) with_redis=1; shift ;;
	--redis-only) with_redis=1; run_limitkv=0; shift ;;
	--clients) clients=$2; shift 2 ;;
	--timeout) unit_timeout=$2; shift 2 ;;
	--drop) drop+=("$2"); shift 2 ;;
	--cluster-units) units+=(unit/cluster unit/cluster-scripting unit/cluster/misc unit/cluster/links
		unit/cluster/announced-endpoints); shift ;;
	--cluster-suite) cluster_suite=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) units+=("$1"); shift ;;
	esac
done
if [ -z "$unit_timeout" ]; then
	unit_timeout=900
	[ "$cluster_suite" = 1 ] && [ ${#units[@]} -eq 0 ] && unit_timeout=5400
fi
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
src=$cache/redis-$REDIS_VERSION

# iso: the prefix that runs a harness in a network namespace of its own
# with only a loopback (unshare -n, as root, when it works), so that runs
# side by side (limitkv's and redis-server's) never take each other's
# ports: both harnesses pick ports from the same ranges, and the cluster
# suite restarts killed instances on their old ports. Else none.
iso=()
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null &&
	unshare -n true 2>/dev/null; then
	iso=(unshare -n sh -c 'ip link set lo up && exec "$@"' sh)
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

fetch_source() {
	[ -x "$src/runtest" ] && return
	local dl=$cache/dl
	mkdir -p "$dl"
	if ! ls "$dl"/redis_"$REDIS_VERSION".orig.tar.* >/dev/null 2>&1; then
		if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			echo "run.sh: adding deb-src entries for Debian's archive (/etc/apt/sources.list.d/limitkv-deb-src.sources)" >&2
			as_root tee /etc/apt/sources.list.d/limitkv-deb-src.sources >/dev/null <<-EOF
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: $(. /etc/os-release && echo "$VERSION_CODENAME $VERSION_CODENAME-updates")
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

			Types: deb-src
			URIs: http://deb.debian.org/debian-security
			Suites: $(. /etc/os-release && echo "$VERSION_CODENAME-security")
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
			as_root apt-get update -q >&2
		fi
		(cd "$dl" && apt-get source --download-only redis >&2)
	fi
	local tarball
	tarball=$(ls "$dl"/redis_"$REDIS_VERSION".orig.tar.* | head -1) ||
		{ echo "run.sh: Debian's redis source is not $REDIS_VERSION" >&2; exit 1; }
	tar -C "$cache" -xf "$tarball"
	[ -x "$src/runtest" ] || { echo "run.sh: $tarball has no runtest" >&2; exit 1; }
}

need_tcl() {
	command -v tclsh >/dev/null && return
	as_root apt-get install -y tcl >&2
}

# tree NAME SERVER: a copy of the source tree whose src/redis-server is
# SERVER, with Debian's tools beside it (each binary its own tree, and the
# cluster suite its own too, so that runs side by side share no tests/tmp).
tree() {
	local t=$cache/tree-$1
	if [ ! -d "$t" ]; then
		mkdir -p "$t"
		cp -a "$src/." "$t/"
	fi
	mkdir -p "$t/src"
	rm -f "$t/src/redis-server"
	cp "$2" "$t/src/redis-server"
	local tool
	for tool in redis-cli redis-benchmark redis-check-rdb redis-check-aof redis-sentinel; do
		if [ -x "/usr/bin/$tool" ]; then
			ln -sf "/usr/bin/$tool" "$t/src/$tool"
		fi
	done
	rm -rf "$t/tests/tmp"
	mkdir -p "$t/tests/tmp"
	echo "$t"
}

# run_units NAME TREE: one runtest per unit; counts go to $cache/counts-NAME.
run_units() {
	local name=$1 t=$2 logs=$cache/logs/$1
	mkdir -p "$logs"
	: >"$cache/counts-$name"
	local list=("${units[@]}")
	[ ${#list[@]} -eq 0 ] && list=(all)
	local u
	for u in "${list[@]}"; do
		local log=$logs/$(echo "$u" | tr / _).log
		local args=(--clients "$clients" --timeout "$unit_timeout")
		[ "$u" != all ] && args+=(--single "$u")
		echo "== $name: $u" >&2
		(cd "$t" && timeout --kill-after=10 "$unit_timeout" ${iso[@]+"${iso[@]}"} ./runtest "${args[@]}" ${extra[@]+"${extra[@]}"} </dev/null >"$log" 2>&1) || true
		# runtest colours its tags; the counts read the plain text.
		sed -i 's/\x1b\[[0-9;]*m//g' "$log"
		local ok err exc skip
		ok=$(grep -c '^\[ok\]:' "$log" || true)
		err=$(grep -c '^\[err\]:' "$log" || true)
		exc=$(grep -c '^\[exception\]:' "$log" || true)
		skip=$(grep -c '^\[\(skip\|ignore\)\]:' "$log" || true)
		printf '%s\t%s\t%s\t%s\t%s\n' "$u" "$ok" "$err" "$exc" "$skip" >>"$cache/counts-$name"
		if [ "$err$exc" != 00 ]; then
			echo "-- first failures ($log):" >&2
			grep -m 3 -A 3 '^\[err\]:\|^\[exception\]:' "$log" | head -12 >&2 || true
		fi
	done
}

# run_cluster_suite NAME TREE: tests/cluster through runtest-cluster, per
# file; counts go to $cache/counts-cluster-NAME.
run_cluster_suite() {
	local name=$1 t=$2 logs=$cache/logs/$1
	local counts=$cache/counts-cluster-$name
	mkdir -p "$logs"
	: >"$counts"
	local list=("${units[@]}")
	[ ${#list[@]} -eq 0 ] && list=(all)
	local u
	for u in "${list[@]}"; do
		u=${u#tests/}
		u=${u%.tcl}
		local log=$logs/cluster_$u.log
		local args=()
		[ "$u" != all ] && args+=(--single "tests/$u.tcl")
		echo "== $name: tests/cluster $u" >&2
		rm -rf "$t/tests/cluster/tmp"/*
		(cd "$t" && timeout --kill-after=10 "$unit_timeout" ${iso[@]+"${iso[@]}"} ./runtest-cluster ${args[@]+"${args[@]}"} ${extra[@]+"${extra[@]}"} </dev/null >"$log" 2>&1) || true
		# The instances of a run the timeout stopped outlive it.
		pkill_tree_instances "$t"
		sed -i 's/\x1b\[[0-9;]*m//g' "$log"
		# One line per file: a test is "HH:MM:SS> name: " with OK at the
		# end of its (last) line, or a FAILED line; an error that ends the
		# file says "caught an error", as does the jump to the next file
		# after a failed assertion (not counted twice; in a file whose
		# tests run in a loop the jump only ends that turn).
		awk -v OFS='\t' '
			function close_unit() {
				if (cur == "") return
				if (pending) exc++
				print cur, ok, err, exc, 0
			}
			/^Testing unit: / { close_unit(); cur = $3; sub(/\.tcl$/, "", cur); ok = err = exc = pending = jumped = 0; next }
			/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]> / { if (pending) exc++; pending = 1; jumped = 0 }
			/^FAILED: caught an error/ { if (!jumped) exc++; pending = jumped = 0; next }
			/^FAILED: |: FAILED: / && pending { err++; pending = 0; jumped = 1; next }
			pending && / ?OK$/ { ok++; pending = 0 }
			END { close_unit() }
		' "$log" >>"$counts"
		if grep -q 'FAILED' "$log"; then
			echo "-- first failures ($log):" >&2
			grep -m 3 -B 1 -A 2 'FAILED' "$log" | head -12 >&2 || true
		fi
	done
}

# pkill_tree_instances TREE: the servers runtest-cluster started from
# TREE's src/redis-server that still run (a stopped runtest-cluster leaves
# them; one that ends kills them itself), each by its pid.
pkill_tree_instances() {
	local exe=$1/src/redis-server p pids=()
	for p in /proc/[0-9]*; do
		case $(readlink "$p/exe" 2>/dev/null) in
		"$exe" | "$exe (deleted)") pids+=("${p#/proc/}") ;;
		esac
	done
	[ ${#pids[@]} -eq 0 ] && return
	kill "${pids[@]}" 2>/dev/null || true
	sleep 2
	# A server whose shutdown save fails goes on running, as Redis does.
	kill -9 "${pids[@]}" 2>/dev/null || true
}

fetch_source
need_tcl
names=()
if [ "$run_limitkv" = 1 ]; then
	bin=$cache/limitkv-redis-server
	(cd "$repo" && go build -o "$bin" ./cmd/limitkv)
	if [ ${#drop[@]} -gt 0 ]; then
		# exec keeps the pid, which the harness finds in the logo.
		pattern=$(IFS='|'; echo "${drop[*]}")
		cat >"$bin.wrap" <<-EOF
		#!/bin/sh
		# run.sh --drop: limitkv without these directives: $pattern
		if [ -f "\$1" ]; then
			conf=\$1
			shift
			grep -v -i -E '^[[:space:]]*($pattern)([[:space:]]|\$)' "\$conf" >"\$conf.limitkv"
			set -- "\$conf.limitkv" "\$@"
		fi
		exec "$bin" "\$@"
		EOF
		chmod +x "$bin.wrap"
		bin=$bin.wrap
	fi
	if [ "$cluster_suite" = 1 ]; then
		run_cluster_suite limitkv "$(tree cluster-limitkv "$bin")"
	else
		run_units limitkv "$(tree limitkv "$bin")"
	fi
	names+=(limitkv)
fi
if [ "$with_redis" = 1 ]; then
	if [ "$cluster_suite" = 1 ]; then
		run_cluster_suite redis "$(tree cluster-redis /usr/bin/redis-server)"
	else
		run_units redis "$(tree redis /usr/bin/redis-server)"
	fi
	names+=(redis)
fi

# The table: ok/err/exception/skipped for each binary, unit by unit (the
# units of every binary's run, in the order they ran).
counts=counts
[ "$cluster_suite" = 1 ] && counts=counts-cluster
{
	printf '%-32s' unit
	for n in "${names[@]}"; do printf '  %-24s' "$n ok/err/exc/skip"; done
	printf '\n'
	for n in "${names[@]}"; do cut -f1 "$cache/$counts-$n"; done | awk '!seen[$0]++' | while read -r u; do
		printf '%-32s' "$u"
		for n in "${names[@]}"; do
			printf '  %-24s' "$(awk -F'\t' -v u="$u" '$1 == u { print $2 "/" $3 "/" $4 "/" $5 }' "$cache/$counts-$n")"
		done
		printf '\n'
	done
}
