package main

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/limitkv/limitkv/internal/lua"
)

// The seed's Lua script, verbatim from shared/seed. Loaded without its final
// newline, as `redis-cli SCRIPT LOAD "$(cat sliding_window.lua)"` does, its
// SHA1 is the one real deployments call with EVALSHA.
var seedScript = strings.TrimSuffix(lua.SlidingWindowScript, "\n")

const seedSHA = "91bc54027b375c6932fd44b714479f32d407fcba"

func seedScriptSHA() string {
	h := sha1.Sum([]byte(seedScript))
	return hex.EncodeToString(h[:])
}
