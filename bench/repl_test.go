package main

import (
	"slices"
	"testing"
)

func TestReplicaLag(t *testing.T) {
	info := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n" +
		"slave0:ip=127.0.0.1,port=7001,state=online,offset=900,lag=0\r\n" +
		"slave1:ip=127.0.0.1,port=7002,state=online,offset=1000,lag=1\r\n" +
		"master_repl_offset:1000\r\n"
	tests := []struct {
		name    string
		info    string
		n       int
		want    []int64
		wantErr bool
	}{
		{"two replicas", info, 2, []int64{100, 0}, false},
		{"one asked of two", info, 1, []int64{100}, false},
		{"missing replica line", info, 3, nil, true},
		{"no master offset", "slave0:ip=x,port=1,state=online,offset=5,lag=0\r\n", 1, nil, true},
		{"bad replica offset", "master_repl_offset:10\r\nslave0:ip=x,port=1,state=online,offset=?,lag=0\r\n", 1, nil, true},
	}
	for _, tc := range tests {
		got, err := replicaLag(tc.info, tc.n)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !slices.Equal(got, tc.want) {
			t.Errorf("%s: lag %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReplSetups(t *testing.T) {
	var ids []string
	for _, s := range replSetups() {
		ids = append(ids, s.ID())
	}
	want := []string{"limitkv-0", "redis-0", "limitkv-1limitkv", "redis-1redis", "limitkv-1redis",
		"limitkv-2limitkv", "redis-2redis", "limitkv-2redis"}
	if !slices.Equal(ids, want) {
		t.Errorf("setups %v, want %v", ids, want)
	}
}
