//go:build !unix

package redislog

import "errors"

// OpenSyslog: log/syslog exists only where there is a syslog daemon.
func OpenSyslog(ident, facility string) (SyslogConn, error) {
	return nil, errors.New("syslog is not supported on this system")
}
