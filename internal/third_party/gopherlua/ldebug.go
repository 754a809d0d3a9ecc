package lua

// limitkv addition: runtime error texts as Lua 5.1 words them (ldebug.c),
// naming the variable involved ("attempt to index local 't' (a nil
// value)") from the compiler's debug information, as getobjname does.
//
// Lua 5.1 finds the culprit by its stack slot; here the instruction being
// executed (the current frame's Code[Pc-1]) tells which register (or
// constant) the failing operand came from, and a linear scan of the code
// before it (Lua 5.1's symbexec) finds what last set that register.

// noReg marks an operand that is no register (a constant, or a value met
// along a metatable chain, or the caller is Go code): Lua 5.1 names no
// variable for those.
const noReg = -1

// curInst returns the instruction the running Lua function is executing,
// or false if the current frame is no Lua function.
func (ls *LState) curInst() (uint32, *FunctionProto, int, bool) {
	cf := ls.currentFrame
	if cf == nil || cf.Fn == nil || cf.Fn.IsG || cf.Fn.Proto == nil || cf.Pc < 1 || cf.Pc > len(cf.Fn.Proto.Code) {
		return 0, nil, 0, false
	}
	return cf.Fn.Proto.Code[cf.Pc-1], cf.Fn.Proto, cf.Pc - 1, true
}

// rkReg is the register an RK operand names, or noReg for a constant.
func rkReg(rk int) int {
	if opIsK(rk) {
		return noReg
	}
	return rk
}

// typeError raises Lua 5.1's luaG_typeerror for value v, found in register
// reg of the running Lua function (noReg: nowhere to name it from).
func (ls *LState) typeError(reg int, v LValue, op string) {
	if reg != noReg {
		if _, p, pc, ok := ls.curInst(); ok {
			if kind, name := getObjName(p, pc, reg); kind != "" {
				ls.RaiseError("attempt to %s %s '%s' (a %s value)", op, kind, name, v.Type().String())
			}
		}
	}
	ls.RaiseError("attempt to %s a %s value", op, v.Type().String())
}

// indexReg is the register holding the object the current instruction
// indexes (GETTABLE, SELF: B; SETTABLE: A), or noReg.
func (ls *LState) indexReg() int {
	inst, _, _, ok := ls.curInst()
	if !ok {
		return noReg
	}
	switch opGetOpCode(inst) {
	case OP_GETTABLE, OP_GETTABLEKS, OP_SELF:
		return opGetArgB(inst)
	case OP_SETTABLE, OP_SETTABLEKS:
		return opGetArgA(inst)
	}
	return noReg
}

// indexError raises the error of indexing v, met at step i of a
// metatable chain (only the first step's object is in a register).
func (ls *LState) indexError(i int, v LValue) {
	reg := noReg
	if i == 0 {
		reg = ls.indexReg()
	}
	ls.typeError(reg, v, "index")
}

// arithError is luaG_aritherror for the current arithmetic instruction:
// the culprit is the first operand if it is no number, else the second.
func (ls *LState) arithError(lhs, rhs LValue) {
	_, firstBad := LVAsNumberOk(lhs)
	firstBad = !firstBad
	culprit := rhs
	if firstBad {
		culprit = lhs
	}
	reg := noReg
	if inst, _, _, ok := ls.curInst(); ok {
		switch op := opGetOpCode(inst); {
		case op >= OP_ADD && op <= OP_POW:
			if firstBad {
				reg = rkReg(opGetArgB(inst))
			} else {
				reg = rkReg(opGetArgC(inst))
			}
		case op == OP_UNM:
			reg = rkReg(opGetArgB(inst))
		}
	}
	ls.typeError(reg, culprit, "perform arithmetic on")
}

// concatError is luaG_concaterror for the pair at absolute registers i
// and i+1 of an OP_CONCAT: the culprit is the first unless it is a string
// or a number.
func (ls *LState) concatError(i int, lhs, rhs LValue) {
	culprit, at := lhs, i
	if LVCanConvToString(lhs) {
		culprit, at = rhs, i+1
	}
	reg := noReg
	if inst, _, _, ok := ls.curInst(); ok && opGetOpCode(inst) == OP_CONCAT {
		reg = at - ls.currentFrame.LocalBase
	}
	ls.typeError(reg, culprit, "concatenate")
}

// orderError is luaG_ordererror.
func (ls *LState) orderError(lhs, rhs LValue) {
	t1, t2 := lhs.Type().String(), rhs.Type().String()
	if t1 == t2 {
		ls.runError("attempt to compare two %s values", t1)
	}
	ls.runError("attempt to compare %s with %s", t1, t2)
}

// runError is luaG_runerror: the position is the running function's, so
// an error raised inside a Go function (table.sort comparing two values)
// has none.
func (ls *LState) runError(format string, args ...any) {
	if cf := ls.currentFrame; cf != nil && cf.Fn != nil && cf.Fn.IsG {
		ls.raiseError(0, format, args...)
	}
	ls.RaiseError(format, args...)
}

// LVAsNumberOk converts v as Lua 5.1's tonumber does for arithmetic.
func LVAsNumberOk(v LValue) (LNumber, bool) {
	switch lv := v.(type) {
	case LNumber:
		return lv, true
	case LString:
		if n, err := parseNumber(string(lv)); err == nil {
			return n, true
		}
	}
	return 0, false
}

// getObjName is Lua 5.1's getobjname: what register reg holds at
// instruction pc of p, as a kind ("local", "global", "field", "upvalue",
// "method") and a name; kind "" when nothing useful is known.
func getObjName(p *FunctionProto, pc, reg int) (kind, name string) {
	for depth := 0; depth < 16; depth++ {
		if name := localName(p, reg+1, pc); name != "" {
			return "local", name
		}
		last := setReg(p, pc, reg)
		if last < 0 {
			return "", ""
		}
		inst := p.Code[last]
		switch opGetOpCode(inst) {
		case OP_GETGLOBAL:
			bx := opGetArgBx(inst)
			if bx < len(p.Constants) {
				if s, ok := p.Constants[bx].(LString); ok {
					return "global", string(s)
				}
			}
			return "", ""
		case OP_MOVE, OP_MOVEN:
			a, b := opGetArgA(inst), opGetArgB(inst)
			if b < a {
				pc, reg = last, b
				continue
			}
			return "", ""
		case OP_GETTABLE, OP_GETTABLEKS:
			return "field", kname(p, opGetArgC(inst))
		case OP_GETUPVAL:
			if b := opGetArgB(inst); b < len(p.DbgUpvalues) {
				return "upvalue", p.DbgUpvalues[b]
			}
			return "upvalue", "?"
		case OP_SELF:
			return "method", kname(p, opGetArgC(inst))
		}
		return "", ""
	}
	return "", ""
}

// kname is the name of an RK key operand: a constant string, else "?".
func kname(p *FunctionProto, rk int) string {
	if opIsK(rk) {
		if i := opIndexK(rk); i < len(p.Constants) {
			if s, ok := p.Constants[i].(LString); ok {
				return string(s)
			}
		}
	}
	return "?"
}

// localName is luaF_getlocalname: the n-th (from 1) local active at pc.
func localName(p *FunctionProto, n, pc int) string {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc {
			n--
			if n == 0 {
				return l.Name
			}
		}
	}
	return ""
}

// setReg is the symbolic execution Lua 5.1's symbexec does for
// getobjname: the index of the last instruction before pc that set reg, or
// -1.
func setReg(p *FunctionProto, pc, reg int) int {
	last := -1
	code := p.Code
	for i := 0; i < pc && i < len(code); i++ {
		inst := code[i]
		a := opGetArgA(inst)
		switch op := opGetOpCode(inst); op {
		case OP_LOADNIL:
			if a <= reg && reg <= opGetArgB(inst) {
				last = i
			}
		case OP_CALL, OP_TAILCALL, OP_VARARG:
			if reg >= a {
				last = i
			}
		case OP_TFORLOOP:
			if reg >= a+2 {
				last = i
			}
		case OP_SELF:
			if reg == a || reg == a+1 {
				last = i
			}
		case OP_CLOSURE:
			if reg == a {
				last = i
			}
			// The pseudo-instructions naming its upvalues set nothing.
			if bx := opGetArgBx(inst); bx < len(p.FunctionPrototypes) {
				i += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		case OP_MOVE, OP_MOVEN, OP_LOADK, OP_LOADBOOL, OP_GETUPVAL, OP_GETGLOBAL, OP_GETTABLE, OP_GETTABLEKS,
			OP_NEWTABLE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_UNM, OP_NOT, OP_LEN, OP_CONCAT,
			OP_TESTSET, OP_FORLOOP, OP_FORPREP:
			if reg == a {
				last = i
			}
		}
	}
	return last
}

// TailCallLevel reports whether stack level falls on a call that a tail
// call replaced: Lua 5.1's lua_getstack gives it a record with no line
// (GetStack gives the bottom frame instead).
func (ls *LState) TailCallLevel(level int) bool {
	frame := ls.currentFrame
	for ; level > 0 && frame != nil; frame = frame.Parent {
		level--
		if !frame.Fn.IsG {
			level -= frame.TailCall
		}
	}
	return level < 0
}
