"""Reads keys with redis-py's RedisCluster, as testdata/node/cluster.mjs
does with ioredis: once while their slots migrate (ASK), then after a line
on stdin once they have moved (MOVED, the client's map being stale)."""
import sys

from redis.cluster import RedisCluster

host, port = sys.argv[1].split(":")
keys = sys.argv[2:]
c = RedisCluster(host=host, port=int(port), decode_responses=True)


def read(phase):
    for k in keys:
        try:
            print(f"{phase} {k}={c.get(k)}", flush=True)
        except Exception as e:  # reported, the test fails on it
            print(f"{phase} {k} error {e}", flush=True)


read("ask")
print("ready", flush=True)
sys.stdin.readline()
read("moved")
c.close()
