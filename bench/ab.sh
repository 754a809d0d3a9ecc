#!/usr/bin/env bash
# ab.sh OLD NEW [ROUNDS]: two limitkv binaries (or a limitkv and a
# redis-server, or the same binary with different flags through
# A_ARGS/B_ARGS) side by side on the same machine, in alternating rounds:
# redis-benchmark's PING and the seed check (RL.CHECK, random users, a fixed
# now) at P1 and P16, 50 clients. Prints each row's requests per second for
# both, their median ratio B/A, and the servers' CPU per request from
# /proc. Both servers are stopped by pid, also on failure.
#
#   bench/ab.sh /tmp/limitkv-before /tmp/limitkv-after         # a change, before and after
#   B_ARGS="--cluster-enabled yes" B_SETUP="CLUSTER ADDSLOTSRANGE 0 16383" \
#     bench/ab.sh /tmp/limitkv /tmp/limitkv                       # what cluster mode costs
#   AB_ROWS="RL.TOKEN P16|-P 16 -r 1000000 RL.TOKEN {t}:__rand_int__ 1700000000000 1000 1000 3600000" \
#     bench/ab.sh /tmp/limitkv-before /tmp/limitkv-after          # other rows
set -euo pipefail
A=${1:?old binary}
B=${2:?new binary}
ROUNDS=${3:-5}
N=${N:-200000}
BENCH=${REDIS_BENCHMARK:-redis-benchmark}
dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start() { # bin port extra...
	local bin=$1 port=$2
	shift 2
	mkdir -p "$dir/$port"
	"$bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir/$port" "$@" >"$dir/$port.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		redis-cli -p "$port" PING >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "server on $port did not start" >&2
	cat "$dir/$port.log" >&2
	exit 1
}

cpu_ticks() { # pid: utime+stime in clock ticks
	awk '{print $14+$15}' "/proc/$1/stat"
}

pa=$(free_port)
pb=$(free_port)
# shellcheck disable=SC2086
start "$A" "$pa" ${A_ARGS:-}
apid=${pids[-1]}
# shellcheck disable=SC2086
start "$B" "$pb" ${B_ARGS:-}
bpid=${pids[-1]}
hz=$(getconf CLK_TCK)
# A_SETUP/B_SETUP: a command for redis-cli to send after start (e.g.
# "CLUSTER ADDSLOTSRANGE 0 16383" for a node in cluster mode, which then
# serves every slot once its state is ok, 2 s later).
# shellcheck disable=SC2086
[ -n "${A_SETUP:-}" ] && redis-cli -p "$pa" ${A_SETUP} >/dev/null
# shellcheck disable=SC2086
[ -n "${B_SETUP:-}" ] && redis-cli -p "$pb" ${B_SETUP} >/dev/null
if [ -n "${A_SETUP:-}${B_SETUP:-}" ]; then sleep 3; fi

rows=("PING P1|-P 1 PING" "PING P16|-P 16 PING"
	"RL.CHECK P1|-P 1 -r 1000000 RL.CHECK {t}:rl:__rand_int__ 1700000000000 60000 5 m:__rand_int__"
	"RL.CHECK P16|-P 16 -r 1000000 RL.CHECK {t}:rl:__rand_int__ 1700000000000 60000 5 m:__rand_int__")
# AB_ROWS replaces the rows: one "name|redis-benchmark arguments" per line.
if [ -n "${AB_ROWS:-}" ]; then mapfile -t rows <<<"$AB_ROWS"; fi

run() { # port pid args... -> "rps cpu_us_per_request"
	local port=$1 pid=$2
	shift 2
	local t0 t1 out
	t0=$(cpu_ticks "$pid")
	# shellcheck disable=SC2068
	out=$("$BENCH" -p "$port" -c 50 -n "$N" -q $@ 2>/dev/null | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | awk '{print $1}')
	t1=$(cpu_ticks "$pid")
	awk -v r="$out" -v d=$((t1 - t0)) -v hz="$hz" -v n="$N" 'BEGIN{printf "%s %.2f\n", r, d/hz*1e6/n}'
}

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

echo "| row | A rps (median) | B rps (median) | B/A | A CPU us/req | B CPU us/req |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do
	name=${row%%|*}
	args=${row#*|}
	: >"$dir/a" && : >"$dir/b" && : >"$dir/r"
	for _ in $(seq "$ROUNDS"); do
		redis-cli -p "$pa" FLUSHALL >/dev/null
		redis-cli -p "$pb" FLUSHALL >/dev/null
		# shellcheck disable=SC2086
		a=$(run "$pa" "$apid" $args)
		# shellcheck disable=SC2086
		b=$(run "$pb" "$bpid" $args)
		echo "$a" >>"$dir/a"
		echo "$b" >>"$dir/b"
		awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN{if (a>0) printf "%.3f\n", b/a}' >>"$dir/r"
	done
	printf "| %s | %s | %s | %.2fx | %s | %s |\n" "$name" \
		"$(cut -d' ' -f1 "$dir/a" | median)" "$(cut -d' ' -f1 "$dir/b" | median)" "$(median <"$dir/r")" \
		"$(cut -d' ' -f2 "$dir/a" | median)" "$(cut -d' ' -f2 "$dir/b" | median)"
done
