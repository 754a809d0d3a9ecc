//go:build !unix

package main

import "log/slog"

func warnFileLimit(*slog.Logger, int64) {}
