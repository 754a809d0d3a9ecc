package engine

import (
	"strconv"
	"time"
)

type InfoBuf struct{ S []byte }

func (b *InfoBuf) Kv(k, v string) {
	b.S = append(b.S, k...)
	b.S = append(b.S, ':')
	b.S = append(b.S, v...)
	b.S = append(b.S, "\r\n"...)
}

func (b *InfoBuf) I(k string, v int64) { b.Kv(k, strconv.FormatInt(v, 10)) }

func (b *InfoBuf) F(k string, v float64, prec int) { b.Kv(k, strconv.FormatFloat(v, 'f', prec, 64)) }

// opsSample is the last (time, commands) pair instantaneous_ops_per_sec was
// computed from.
type OpsSample struct {
	At   time.Time
	Cmds int64
	Rate int64
}
