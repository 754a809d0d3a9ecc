//go:build race

package hll

const raceEnabled = true
