// Package seedscript holds the seed's sliding-window rate-limit Lua script,
// byte for byte. It is a leaf (standard library only) so that the ratelimit
// client and the server's script recogniser share one copy without the
// client linking the server.
package seedscript

import _ "embed"

// Source is the seed's sliding-window rate-limit script, verbatim, its final
// newline included: its SHA1 is 2f28f575aa22b7cfd53ae3e5432bbd242143347a
// (91bc54027b375c6932fd44b714479f32d407fcba without the final newline).
//
//go:embed sliding_window.lua
var Source string
