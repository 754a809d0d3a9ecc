//go:build race

package conformance

// hlRace: PFSELFTEST's ten million additions are too slow for the race
// detector in the in-process limitkv.
const hlRace = true
