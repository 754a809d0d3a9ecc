package limitkv

import (
	"fmt"
	"slices"
	"strings"

	"github.com/limitkv/limitkv/internal/config"
)

// Config is a set of settings by their redis.conf names, each value as
// redis.conf or CONFIG SET writes it:
//
//	limitkv.Config{"maxclients": "100", "maxmemory": "64mb", "save": "3600 1 300 100"}
//
// Every setting CONFIG GET lists is accepted (aliases too: lua-time-limit,
// zset-max-ziplist-entries, ...), checked by the same code as CONFIG SET, so
// a value CONFIG SET refuses makes Start fail with Redis's reason. dir,
// dbfilename and rdbchecksum, which CONFIG SET may not change, can be set
// here. port and bind cannot: Options.Addr chooses where the server listens.
type Config map[string]string

func (c Config) apply(cfg *config.Config) error {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	slices.Sort(names) // one order, so one error, whatever the map's order
	for _, name := range names {
		switch strings.ToLower(name) {
		case "port", "bind":
			return fmt.Errorf("limitkv: Config %q: set Options.Addr instead", name)
		}
		known, err := cfg.ApplyDirective(name, []string{c[name]}, nil)
		if !known {
			return fmt.Errorf("limitkv: Config %q: no such setting (CONFIG GET * lists them)", name)
		}
		if err != "" {
			return fmt.Errorf("limitkv: Config %s %q: %s", name, c[name], err)
		}
	}
	return nil
}

// ConfigGet answers what CONFIG GET name answers: the setting's current
// value, and whether there is such a setting.
func (s *Server) ConfigGet(name string) (string, bool) {
	r, err := s.do("CONFIG", "GET", name)
	if err != nil {
		return "", false
	}
	a, _ := r.([]any)
	if len(a) != 2 {
		return "", false
	}
	v, _ := a[1].(string)
	return v, true
}

// ConfigSet is CONFIG SET name value, with its checks and errors.
func (s *Server) ConfigSet(name, value string) error {
	_, err := s.do("CONFIG", "SET", name, value)
	return err
}
