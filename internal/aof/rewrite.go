package aof

import (
	"math"
	"strconv"

	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/rdb"
	"github.com/limitkv/limitkv/internal/stream"
)

// A base made of commands, as rewriteAppendOnlyFileRio writes it with
// aof-use-rdb-preamble no: FUNCTION LOAD for each library, then per
// database a SELECT and, per key, the commands that rebuild its value
// followed by PEXPIREAT if it has a deadline. The bytes follow Redis's
// rio helpers (rioWriteBulkCount, rioWriteBulkString, rioWriteBulkDouble's
// %.17g) so that the same value in the same order gives the same file.

// ItemsPerCmd is AOF_REWRITE_ITEMS_PER_CMD: a big collection is split
// into commands of at most this many elements, so that loading never
// builds one enormous argument vector.
const ItemsPerCmd = 64

func appendCount(dst []byte, n int) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

func appendBulk(dst, b []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

func appendBulkString(dst []byte, s string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

func appendBulkInt(dst []byte, n int64) []byte {
	var b [20]byte
	return appendBulk(dst, strconv.AppendInt(b[:0], n, 10))
}

func appendBulkUint(dst []byte, n uint64) []byte {
	var b [20]byte
	return appendBulk(dst, strconv.AppendUint(b[:0], n, 10))
}

func appendBulkID(dst []byte, id stream.ID) []byte {
	var b [41]byte
	return appendBulk(dst, id.Append(b[:0]))
}

// AppendSelect is the SELECT that opens a database's keys.
func AppendSelect(dst []byte, db int) []byte {
	dst = append(dst, "*2\r\n$6\r\nSELECT\r\n"...)
	return appendBulkInt(dst, int64(db))
}

// AppendFunctionLoad is rewriteFunctions' command for one library.
func AppendFunctionLoad(dst, code []byte) []byte {
	dst = append(dst, "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n"...)
	return appendBulk(dst, code)
}

// AppendEntry appends the commands that rebuild one key, its deadline
// last (the value must exist before PEXPIREAT can apply to it).
func AppendEntry(dst []byte, e *rdb.Entry) []byte {
	v := &e.Value
	switch v.Type {
	case rdb.TypeString:
		dst = append(dst, "*3\r\n$3\r\nSET\r\n"...)
		dst = appendBulk(dst, e.Key)
		dst = appendBulk(dst, v.String)
	case rdb.TypeList:
		dst = appendChunked(dst, "RPUSH", e.Key, len(v.List), 1, func(dst []byte, i int) []byte { return appendBulk(dst, v.List[i]) })
	case rdb.TypeSet:
		dst = appendChunked(dst, "SADD", e.Key, len(v.Set), 1, func(dst []byte, i int) []byte { return appendBulk(dst, v.Set[i]) })
	case rdb.TypeZSet:
		var score []byte
		dst = appendChunked(dst, "ZADD", e.Key, len(v.ZSet), 2, func(dst []byte, i int) []byte {
			score = num.AppendFloat(score[:0], v.ZSet[i].Score)
			return appendBulk(appendBulk(dst, score), v.ZSet[i].Member)
		})
	case rdb.TypeHash:
		// HMSET, not HSET: Redis 7.0 still writes the old name.
		dst = appendChunked(dst, "HMSET", e.Key, len(v.Hash), 2, func(dst []byte, i int) []byte {
			return appendBulk(appendBulk(dst, v.Hash[i].Field), v.Hash[i].Value)
		})
	case rdb.TypeStream:
		dst = appendStream(dst, e.Key, v.Stream)
	}
	if e.HasExpire {
		dst = append(dst, "*3\r\n$9\r\nPEXPIREAT\r\n"...)
		dst = appendBulk(dst, e.Key)
		dst = appendBulkInt(dst, e.Expire)
	}
	return dst
}

// appendChunked writes n items as commands of at most ItemsPerCmd items
// each; an item is width arguments (a member, or a score and a member).
func appendChunked(dst []byte, cmd string, key []byte, n, width int, item func([]byte, int) []byte) []byte {
	for i := 0; i < n; i++ {
		if i%ItemsPerCmd == 0 {
			dst = appendCount(dst, 2+min(n-i, ItemsPerCmd)*width)
			dst = appendBulkString(dst, cmd)
			dst = appendBulk(dst, key)
		}
		dst = item(dst, i)
	}
	return dst
}

// appendStream is rewriteStreamObject: the entries as XADDs (an empty
// stream as the XADD MAXLEN 0 trick), XSETID for the last, deleted and
// added counters, then each group with XGROUP CREATE and its consumers'
// pending entries as XCLAIM ... FORCE, or XGROUP CREATECONSUMER for a
// consumer with none.
func appendStream(dst, key []byte, s *stream.Stream) []byte {
	if s.Len() > 0 {
		s.Range(stream.ID{}, stream.ID{Ms: math.MaxUint64, Seq: math.MaxUint64}, false, func(en stream.Entry) bool {
			dst = appendCount(dst, 3+len(en.Fields))
			dst = append(dst, "$4\r\nXADD\r\n"...)
			dst = appendBulk(dst, key)
			dst = appendBulkID(dst, en.ID)
			for _, f := range en.Fields {
				dst = appendBulk(dst, f)
			}
			return true
		})
	} else {
		dst = append(dst, "*7\r\n$4\r\nXADD\r\n"...)
		dst = appendBulk(dst, key)
		dst = append(dst, "$6\r\nMAXLEN\r\n$1\r\n0\r\n$3\r\n0-1\r\n$1\r\nx\r\n$1\r\ny\r\n"...)
	}
	dst = append(dst, "*7\r\n$6\r\nXSETID\r\n"...)
	dst = appendBulk(dst, key)
	dst = appendBulkID(dst, s.LastID())
	dst = append(dst, "$12\r\nENTRIESADDED\r\n"...)
	dst = appendBulkUint(dst, s.EntriesAdded())
	dst = append(dst, "$12\r\nMAXDELETEDID\r\n"...)
	dst = appendBulkID(dst, s.MaxDeletedID())
	for _, g := range s.Groups() {
		dst = append(dst, "*7\r\n$6\r\nXGROUP\r\n$6\r\nCREATE\r\n"...)
		dst = appendBulk(dst, key)
		dst = appendBulkString(dst, g.Name)
		dst = appendBulkID(dst, g.LastID)
		dst = append(dst, "$11\r\nENTRIESREAD\r\n"...)
		dst = appendBulkInt(dst, g.EntriesRead)
		for _, c := range g.Consumers() {
			if c.PendingCount() == 0 {
				dst = append(dst, "*5\r\n$6\r\nXGROUP\r\n$14\r\nCREATECONSUMER\r\n"...)
				dst = appendBulk(dst, key)
				dst = appendBulkString(dst, g.Name)
				dst = appendBulkString(dst, c.Name)
				continue
			}
			c.Pending(stream.ID{}, func(id stream.ID, n *stream.NACK) bool {
				dst = append(dst, "*12\r\n$6\r\nXCLAIM\r\n"...)
				dst = appendBulk(dst, key)
				dst = appendBulkString(dst, g.Name)
				dst = appendBulkString(dst, c.Name)
				dst = append(dst, "$1\r\n0\r\n"...)
				dst = appendBulkID(dst, id)
				dst = append(dst, "$4\r\nTIME\r\n"...)
				dst = appendBulkInt(dst, n.DeliveryTime)
				dst = append(dst, "$10\r\nRETRYCOUNT\r\n"...)
				dst = appendBulkUint(dst, n.DeliveryCount)
				dst = append(dst, "$6\r\nJUSTID\r\n$5\r\nFORCE\r\n"...)
				return true
			})
		}
	}
	return dst
}
