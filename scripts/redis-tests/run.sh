#!/usr/bin/env bash
# Runs Redis 7.0.15's own test suite (its Tcl harness, unchanged) with
# limitkv standing in as src/redis-server, and optionally with the real
# redis-server too, and prints each unit's counts side by side.
#
#   scripts/redis-tests/run.sh [options] [unit ...]
#
#   unit             a test unit as runtest's --single takes it, e.g.
#                    unit/info-command unit/type/string; none: the whole suite
#   --cache DIR      where Redis's source tree is kept
#                    (default $REDIS_TESTS_CACHE or ~/.cache/limitkv-redis-tests)
#   --with-redis     also run each unit with Debian's /usr/bin/redis-server
#   --redis-only     run only with the real redis-server
#   --clients N      runtest's --clients (default 1; 2 at most on a 2-core box)
#   --timeout S      seconds a unit may take before it is stopped (default 900)
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
# Logs: $CACHE/logs/<binary>/<unit>.log; each unit runs in its own runtest,
# so its counts are its own.
set -euo pipefail

REDIS_VERSION=7.0.15
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${REDIS_TESTS_CACHE:-$HOME/.cache/limitkv-redis-tests}
clients=1
unit_timeout=900
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
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) units+=("$1"); shift ;;
	esac
done
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
src=$cache/redis-$REDIS_VERSION

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
# SERVER, with Debian's tools beside it (each binary its own tree, so the
# runs do not share tests/tmp).
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
		(cd "$t" && timeout --kill-after=10 "$unit_timeout" ./runtest "${args[@]}" ${extra[@]+"${extra[@]}"} </dev/null >"$log" 2>&1) || true
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
	run_units limitkv "$(tree limitkv "$bin")"
	names+=(limitkv)
fi
if [ "$with_redis" = 1 ]; then
	run_units redis "$(tree redis /usr/bin/redis-server)"
	names+=(redis)
fi

# The table: ok/err/exception/skipped for each binary, unit by unit.
{
	printf '%-28s' unit
	for n in "${names[@]}"; do printf '  %-24s' "$n ok/err/exc/skip"; done
	printf '\n'
	cut -f1 "$cache/counts-${names[0]}" | while read -r u; do
		printf '%-28s' "$u"
		for n in "${names[@]}"; do
			printf '  %-24s' "$(awk -F'\t' -v u="$u" '$1 == u { print $2 "/" $3 "/" $4 "/" $5 }' "$cache/counts-$n")"
		done
		printf '\n'
	done
}
