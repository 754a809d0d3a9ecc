#!/usr/bin/env bash
# Runs the multi-node Redis Cluster proofs that the default `go test ./...`
# leaves out (conformance's clusterSuite): mixed and all-limitkv clusters
# made by redis-cli --cluster, reshards and rebalances under load, clients
# following MOVED/ASK, failovers by kill -9 and by CLUSTER FAILOVER,
# replica migration, and network partitions (those need root and iproute2;
# they skip otherwise). Needs redis-server 7.0 and redis-cli on the PATH
# (Debian: apt-get install redis-server redis-tools).
#
#   scripts/cluster-tests.sh                 # every cluster proof
#   scripts/cluster-tests.sh -run Partition  # some of them (go test's -run)
#   scripts/cluster-tests.sh -race           # more go test flags
#
# Each test stops the servers it started; a run takes several minutes on
# two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
run='^TestCluster|^TestRateLimitCluster'
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-run) run=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
LIMITKV_CLUSTER_SUITE=1 LIMITKV_REQUIRE_REDIS=1 exec go test -count=1 -timeout 40m -run "$run" "${args[@]}" ./conformance
