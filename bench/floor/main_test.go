package main

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ping := "*1\r\n$4\r\nPING\r\n"
	cases := []struct {
		in         string
		cmds, used int
		bad        bool
	}{
		{"", 0, 0, false},
		{ping, 1, len(ping), false},
		{strings.Repeat(ping, 16), 16, 16 * len(ping), false},
		{ping + ping[:7], 1, len(ping), false}, // a partial read
		{ping[:2], 0, 0, false},
		{ping[:len(ping)-1], 0, 0, false},
		{"PING\r\n", 1, 6, false},
		{"PING\r\nPING\r\nPI", 2, 12, false},
		{"PING\n", 1, 5, false},
		{"\r\n" + ping, 1, 2 + len(ping), false}, // a blank line gets no reply
		{"*0\r\n" + ping, 1, 4 + len(ping), false},
		{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n", 1, 37, false},
		{"*1\r\n$4\r\nPINGxx", 0, 0, true},
		{ping + "*1\r\n+PING\r\n", 1, len(ping), true},
		{"*x\r\n", 0, 0, true},
		{strings.Repeat("a", maxInline+1), 0, 0, true},
	}
	for _, c := range cases {
		cmds, used, bad := parse([]byte(c.in))
		if cmds != c.cmds || used != c.used || bad != c.bad {
			t.Errorf("parse(%q) = %d, %d, %v; want %d, %d, %v", c.in, cmds, used, bad, c.cmds, c.used, c.bad)
		}
	}
}
