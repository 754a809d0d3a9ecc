//go:build !race

package conformance

const hlRace = false
