//go:build unix

package redislog

import (
	"fmt"
	"log/syslog"
	"strings"
)

// facilities are syslog-facility's values (config.c syslog_facility_enum).
var facilities = map[string]syslog.Priority{
	"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1,
	"local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4,
	"local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// ParseFacility reads syslog-facility, any case; the error is Redis's
// enum text.
func ParseFacility(name string) (syslog.Priority, error) {
	if p, ok := facilities[strings.ToLower(name)]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("argument(s) must be one of the following: user, local0, local1, local2, local3, local4, local5, local6, local7")
}

// OpenSyslog connects to the local syslog daemon as Redis's
// openlog(ident, LOG_PID|LOG_NDELAY|LOG_NOWAIT, facility): log/syslog puts
// the pid in every message as LOG_PID does.
func OpenSyslog(ident, facility string) (SyslogConn, error) {
	p, err := ParseFacility(facility)
	if err != nil {
		return nil, err
	}
	return syslog.New(p|syslog.LOG_NOTICE, ident)
}
