package engine

import "github.com/limitkv/limitkv/internal/num"

// mpopArgs is the parsed tail LMPOP, ZMPOP and their blocking forms share:
// numkeys keys, the side to pop from, and [COUNT n].
type mpopArgs struct {
	Keys  [][]byte
	Side  bool
	Count int64
}

// parseMPop parses that tail in Redis's order of checks (lmpopGenericCommand
// and zmpopGenericCommand read it alike), numkeys at numIdx; side reads the
// word after the keys and answers its own error.
func ParseMPop(x *Ctx, numIdx int, side func(*Ctx, []byte) (bool, bool)) (mpopArgs, bool) {
	args := x.Args
	var p mpopArgs
	numkeys, ok := num.ParseInt(args[numIdx])
	if !ok || numkeys < 1 {
		x.W.Error(ErrZNumKeysPositive)
		return p, false
	}
	if numkeys >= int64(len(args)) || numIdx+int(numkeys)+1 >= len(args) {
		x.W.Error(ErrSyntax)
		return p, false
	}
	whereIdx := numIdx + int(numkeys) + 1
	if p.Side, ok = side(x, args[whereIdx]); !ok {
		return p, false
	}
	p.Count = -1
	for j := whereIdx + 1; j < len(args); j++ {
		if p.Count == -1 && CEqualFold(args[j], "count") && j+1 < len(args) {
			j++
			n, ok := num.ParseInt(args[j])
			if !ok || n < 1 {
				x.W.Error(ErrZCountPositive)
				return p, false
			}
			p.Count = n
			continue
		}
		x.W.Error(ErrSyntax)
		return p, false
	}
	if p.Count == -1 {
		p.Count = 1
	}
	p.Keys = args[numIdx+1 : whereIdx]
	return p, true
}
