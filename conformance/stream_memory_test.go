package conformance

import "testing"

// MEMORY USAGE of streams: SAMPLES n averages the first n nodes' listpacks
// (0: all of them), and the node XADD is filling counts with the room
// Redis's lpNew gave it, stream-node-max-bytes (at most 4096) as configured
// when the node was made; a COPY or a RESTORE allocates every node to size.
// The servers' key overheads differ, so the figures compared are each
// key's usage minus that of a one-entry stream with a name as long.
func TestStreamMemoryUsageSamples(t *testing.T) {
	const usage = `local function u(k, n)
	if n then return redis.call('MEMORY', 'USAGE', k, 'SAMPLES', n) end
	return redis.call('MEMORY', 'USAGE', k)
end
local base, out = u('r'), {}
for _, k in ipairs(KEYS) do
	for _, n in ipairs({false, '1', '2', '3', '5', '7', '0', '100'}) do out[#out+1] = u(k, n) - base end
end
return out`
	// Entries growing in size: every node a different size, so each
	// sample count gives a different average.
	const grow = `for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], i .. '-1', 'f', string.rep('x', i * 7)) end`
	defaults := C("CONFIG", "SET", "stream-node-max-bytes", "4096", "stream-node-max-entries", "100")
	runCases(t, []Case{
		{Name: "samples and node limits", Cmds: []Cmd{defaults, C("XADD", "r", "1-1", "a", "b"),
			C("CONFIG", "SET", "stream-node-max-entries", "4"), C("EVAL", grow, "1", "s", "38"),
			C("CONFIG", "SET", "stream-node-max-bytes", "1000"), C("EVAL", grow, "1", "t", "3"), C("EVAL", grow, "1", "v", "30"),
			// A later limit changes nothing already allocated.
			C("CONFIG", "SET", "stream-node-max-bytes", "100"),
			C("COPY", "s", "c"), C("EVAL", "return redis.call('RESTORE', 'd', 0, redis.call('DUMP', 's'))", "0"),
			C("EVAL", usage, "6", "s", "t", "v", "c", "d", "r"),
			C("XDEL", "s", "37-1", "38-1"), C("XADD", "c", "39-1", "f", "y"), C("EVAL", usage, "2", "s", "c"),
			C("MEMORY", "USAGE", "s", "SAMPLES", "9223372036854775807").Ignore(), defaults}},
	})
}
