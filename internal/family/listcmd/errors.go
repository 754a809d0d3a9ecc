package listcmd

// LPOS's errors (t_list.c).
const (
	errLPosCount  = "ERR COUNT can't be negative"
	errLPosMaxLen = "ERR MAXLEN can't be negative"
)
