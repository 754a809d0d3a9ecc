package conformance

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"
)

// Upstash ratelimit-js's deny list ("enableProtection"), replayed command
// for command against both servers and compared byte for byte. The deny
// list is a set, prefix:denyList:all, that the library checks on every
// limit() with one script (SMISMEMBER of the identifier, IP, user agent and
// country, and the TTL of the IP list's status key), and that it rebuilds
// once a day from a downloaded IP list with a MULTI of SDIFFSTORE, DEL,
// SADD, SDIFFSTORE, SUNIONSTORE and SET ... PX (updateIpDenyList), or
// strips of the IP list (disableIpDenyList).
//
// Sources, verbatim (github.com/upstash/ratelimit-js):
//   - src/deny-list/scripts.ts @ ccb75c58a55cdb5c79b618bd947f25f9bb1da4e8: checkDenyListScript
//   - src/deny-list/deny-list.ts @ 0ff02ac9ac3f88243ce16b82139d18f659fcd8bc: checkDenyList (keys, ARGV)
//   - src/deny-list/ip-deny-list.ts @ 0ff02ac9ac3f88243ce16b82139d18f659fcd8bc: updateIpDenyList, disableIpDenyList
//   - src/types.ts: DenyListExtension "denyList", IpDenyListKey "ipDenyList", IpDenyListStatusKey "ipDenyListStatus"
//   - src/lua-scripts/single.ts @ e00d2224b06e31d63dcbcf6ffe103955c2066371: fixedWindowLimitScript, tokenBucketLimitScript
//   - src/deny-list/deny-list.test.ts: the upstream test's deny list members and limiter

// checkDenyListScript is the script checkDenyList evaluates.
const upstashCheckDenyListScript = `
  -- Checks if values provideed in ARGV are present in the deny lists.
  -- This is done using the allDenyListsKey below.

  -- Additionally, checks the status of the ip deny list using the
  -- ipDenyListStatusKey below. Here are the possible states of the
  -- ipDenyListStatusKey key:
  -- * status == -1: set to "disabled" with no TTL
  -- * status == -2: not set, meaning that is was set before but expired
  -- * status  >  0: set to "valid", with a TTL
  --
  -- In the case of status == -2, we set the status to "pending" with
  -- 30 second ttl. During this time, the process which got status == -2
  -- will update the ip deny list.

  local allDenyListsKey     = KEYS[1]
  local ipDenyListStatusKey = KEYS[2]

  local results = redis.call('SMISMEMBER', allDenyListsKey, unpack(ARGV))
  local status  = redis.call('TTL', ipDenyListStatusKey)
  if status == -2 then
    redis.call('SETEX', ipDenyListStatusKey, 30, "pending")
  end

  return { results, status }
`

const upstashFixedWindowLimitScript = `
  local key           = KEYS[1]
  local window        = ARGV[1]
  local incrementBy   = ARGV[2] -- increment rate per request at a given value, default is 1

  local r = redis.call("INCRBY", key, incrementBy)
  if r == tonumber(incrementBy) then
  -- The first time this key is set, the value will be equal to incrementBy.
  -- So we only need the expire command once
  redis.call("PEXPIRE", key, window)
  end

  return r
`

const upstashTokenBucketLimitScript = `
  local key         = KEYS[1]           -- identifier including prefixes
  local maxTokens   = tonumber(ARGV[1]) -- maximum number of tokens
  local interval    = tonumber(ARGV[2]) -- size of the window in milliseconds
  local refillRate  = tonumber(ARGV[3]) -- how many tokens are refilled after each interval
  local now         = tonumber(ARGV[4]) -- current timestamp in milliseconds
  local incrementBy = tonumber(ARGV[5]) -- how many tokens to consume, default is 1
        
  local bucket = redis.call("HMGET", key, "refilledAt", "tokens")
        
  local refilledAt
  local tokens

  if bucket[1] == false then
    refilledAt = now
    tokens = maxTokens
  else
    refilledAt = tonumber(bucket[1])
    tokens = tonumber(bucket[2])
  end
        
  if now >= refilledAt + interval then
    local numRefills = math.floor((now - refilledAt) / interval)
    tokens = math.min(maxTokens, tokens + numRefills * refillRate)

    refilledAt = refilledAt + numRefills * interval
  end

  if tokens == 0 then
    return {-1, refilledAt + interval}
  end

  local remaining = tokens - incrementBy
  local expireAt = math.ceil(((maxTokens - remaining) / refillRate)) * interval
        
  redis.call("HSET", key, "refilledAt", refilledAt, "tokens", remaining)
  redis.call("PEXPIRE", key, expireAt)
  return {remaining, refilledAt + interval}
`

func TestLibUpstashDenyList(t *testing.T) {
	const prefix = "test-prefix"
	all := prefix + ":denyList:all"
	ipList := prefix + ":denyList:ipDenyList"
	status := prefix + ":ipDenyListStatus"
	sum := sha1.Sum([]byte(upstashCheckDenyListScript))
	sha := hex.EncodeToString(sum[:])

	// check is checkDenyList for the members limit() passes: identifier,
	// then ip, user agent and country when given.
	check := func(members ...string) Cmd {
		c := C(append([]string{"EVAL", upstashCheckDenyListScript, "2", all, status}, members...)...)
		c.where = caller()
		return c
	}
	// The script cache: a client that tries EVALSHA first gets NOSCRIPT
	// on a fresh server, then the result once EVAL has loaded it.
	checkSHA := func(members ...string) Cmd {
		c := C(append([]string{"EVALSHA", sha, "2", all, status}, members...)...)
		c.where = caller()
		return c
	}
	seed := C("SADD", all, "denyIdentifier", "denyIp", "denyAgent", "denyCountry")
	// updateIpDenyList's transaction with the downloaded ips.
	update := func(ttl string, ips ...string) []Cmd {
		return []Cmd{C("MULTI"), C("SDIFFSTORE", all, all, ipList), C("DEL", ipList), C(append([]string{"SADD", ipList}, ips...)...),
			C("SDIFFSTORE", ipList, ipList, all), C("SUNIONSTORE", all, all, ipList), C("SET", status, "valid", "PX", ttl), C("EXEC")}
	}
	disable := []Cmd{C("MULTI"), C("SDIFFSTORE", all, all, ipList), C("DEL", ipList), C("SET", status, "disabled"), C("EXEC")}
	fixedWindow := func(id, bucket string) Cmd {
		c := C("EVAL", upstashFixedWindowLimitScript, "1", prefix+":"+id+":"+bucket, "10000", "1")
		c.where = caller()
		return c
	}

	var cases []Case
	add := func(name string, cmds ...Cmd) { cases = append(cases, Case{Name: name, Cmds: cmds}) }

	add("members not denied, status missing becomes pending",
		seed, check("randomValue"), C("GET", status), C("TTL", status).TTLApprox(1), check("randomValue"))
	add("each kind of member denied",
		seed, check("denyIdentifier"), check("some-value", "denyIp"), check("some-value", "denyAgent"), check("some-value", "denyCountry"),
		check("denyIdentifier", "1.2.3.4", "Mozilla/5.0", "denyCountry"))
	add("no deny list yet", check("randomValue", "10.0.0.1"), C("EXISTS", all))
	add("evalsha after eval", seed, checkSHA("denyIp"), check("denyIp"), checkSHA("denyIp", "x"), C("SCRIPT", "EXISTS", sha))
	add("limit with protection: fixed window and deny list side by side",
		seed, fixedWindow("randomValue", "172800"), check("randomValue"), fixedWindow("randomValue", "172800"), check("randomValue"),
		fixedWindow("denyIdentifier", "172800"), check("denyIdentifier"), C("PTTL", prefix+":randomValue:172800").TTLApprox(50))
	add("ip list update, status valid",
		append(append([]Cmd{seed, check("5.6.7.8")}, update("3600000", "1.2.3.4", "5.6.7.8", "denyIp", "9.9.9.9")...),
			sAll(all), sAll(ipList), C("SCARD", all), C("PTTL", status).TTLApprox(50), check("5.6.7.8", "denyIp", "randomValue"), sEnc(all))...)
	add("ip list replaced by the next update",
		append(append(append([]Cmd{seed}, update("3600000", "1.2.3.4", "5.6.7.8")...), update("7200000", "5.6.7.8", "8.8.8.8", "denyAgent")...),
			sAll(all), sAll(ipList), check("1.2.3.4", "8.8.8.8", "denyAgent"))...)
	add("update with no ips aborts",
		append(append([]Cmd{seed}, update("3600000")...), sAll(all), C("EXISTS", status))...)
	add("disable after update",
		append(append(append([]Cmd{seed}, update("3600000", "1.2.3.4")...), disable...), sAll(all), C("EXISTS", ipList), C("TTL", status), check("1.2.3.4", "denyIp"))...)
	add("disable with nothing set", append(append([]Cmd{}, disable...), C("EXISTS", all), check("x"))...)
	add("integer-looking members stay comparable",
		append(append([]Cmd{C("SADD", all, "12345", "67890")}, update("1000", "12345", "42")...), C("SMEMBERS", all), sEnc(all), check("42", "12345", "7"))...)
	cases = append(cases, Case{Name: "token bucket limit with protection (upstream deny-list.test.ts)",
		Cmds: []Cmd{seed, C("EVAL", upstashTokenBucketLimitScript, "1", prefix+":randomValue", "10", "5000", "10", "1700000000000", "1"), check("randomValue"),
			C("EVAL", upstashTokenBucketLimitScript, "1", prefix+":denyIdentifier", "10", "5000", "10", "1700000000000", "1"), check("denyIdentifier")}})
	runCases(t, cases)
}
