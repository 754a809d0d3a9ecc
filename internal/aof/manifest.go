// Package aof is Redis 7.0's multi-part append-only file, apart from the
// engine: the manifest (its exact line format, parsing with Redis's checks
// and messages, atomic replacement), the file names of the base and
// incremental parts, and the reader of the command stream with the offset
// of its last complete command (aof-load-truncated).
package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/limitkv/limitkv/internal/sdsargs"
)

// File types of a manifest line.
const (
	TypeBase    = 'b'
	TypeHistory = 'h'
	TypeIncr    = 'i'
)

// Info is one line of the manifest.
type Info struct {
	Name string
	Seq  int64
	Type byte
}

// Manifest is the list of files that make the AOF, as Redis's aofManifest.
type Manifest struct {
	Base     *Info
	History  []Info
	Incr     []Info
	BaseSeq  int64 // curr_base_file_seq
	IncrSeq  int64 // curr_incr_file_seq
	Prefix   string
	Modified bool // dirty: not yet persisted
}

// New returns an empty manifest for files named after prefix (appendfilename).
func New(prefix string) *Manifest { return &Manifest{Prefix: prefix} }

// ManifestName is the manifest's file name for appendfilename prefix.
func ManifestName(prefix string) string { return prefix + ".manifest" }

// ParseError is a fatal manifest error: Redis logs the line and the
// reason, then exits.
type ParseError struct {
	Line    int
	Text    string
	Message string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("Reading the manifest file, at line %d: '%s': %s", e.Line, e.Text, e.Message)
}

const maxLine = 1024

// Parse reads a manifest as aofLoadManifestFromFile does.
func Parse(prefix string, data []byte) (*Manifest, error) {
	m := New(prefix)
	var maxSeq int64
	lines := 0
	rest := string(data)
	for rest != "" {
		nl := strings.IndexByte(rest, '\n')
		var raw string
		if nl < 0 {
			raw, rest = rest, ""
		} else {
			raw, rest = rest[:nl+1], rest[nl+1:]
		}
		// fgets reads at most maxLine bytes of a line at once.
		if len(raw) > maxLine {
			raw, rest = raw[:maxLine], raw[maxLine:]+rest
		}
		lines++
		if raw[0] == '#' {
			continue
		}
		fail := func(msg string) error {
			return &ParseError{Line: lines, Text: strings.Trim(raw, " \t\r\n"), Message: msg}
		}
		if !strings.Contains(raw, "\n") {
			return nil, fail("The AOF manifest file contains too long line")
		}
		line := strings.Trim(raw, " \t\r\n")
		if line == "" {
			return nil, fail("Invalid AOF manifest file format")
		}
		argv, ok := sdsargs.Split(line)
		if !ok || len(argv) < 6 || len(argv)%2 != 0 {
			return nil, fail("Invalid AOF manifest file format")
		}
		var ai Info
		for i := 0; i < len(argv); i += 2 {
			switch strings.ToLower(argv[i]) {
			case "file":
				ai.Name = argv[i+1]
				if filepath.Base(ai.Name) != ai.Name || strings.ContainsRune(ai.Name, '/') {
					return nil, fail("File can't be a path, just a filename")
				}
			case "seq":
				ai.Seq = atoll(argv[i+1])
			case "type":
				if argv[i+1] != "" {
					ai.Type = argv[i+1][0]
				}
			}
		}
		if ai.Name == "" || ai.Seq == 0 || ai.Type == 0 {
			return nil, fail("Invalid AOF manifest file format")
		}
		switch ai.Type {
		case TypeBase:
			if m.Base != nil {
				return nil, fail("Found duplicate base file information")
			}
			b := ai
			m.Base, m.BaseSeq = &b, ai.Seq
		case TypeHistory:
			m.History = append(m.History, ai)
		case TypeIncr:
			if ai.Seq <= maxSeq {
				return nil, fail("Found a non-monotonic sequence number")
			}
			m.Incr = append(m.Incr, ai)
			m.IncrSeq, maxSeq = ai.Seq, ai.Seq
		default:
			return nil, fail("Unknown AOF file type")
		}
	}
	if lines == 0 {
		return nil, &ParseError{Message: "Found an empty AOF manifest"}
	}
	return m, nil
}

// atoll is C's atoll: leading spaces, a sign, digits, and whatever follows
// ignored.
func atoll(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	return n
}

// String is getAofManifestAsString: the base, then history, then incr files.
func (m *Manifest) String() string {
	var b strings.Builder
	line := func(ai *Info) {
		name := ai.Name
		if needsRepr(name) {
			name = repr(name)
		}
		fmt.Fprintf(&b, "file %s seq %d type %c\n", name, ai.Seq, ai.Type)
	}
	if m.Base != nil {
		line(m.Base)
	}
	for i := range m.History {
		line(&m.History[i])
	}
	for i := range m.Incr {
		line(&m.Incr[i])
	}
	return b.String()
}

// Clone is aofManifestDup.
func (m *Manifest) Clone() *Manifest {
	c := *m
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	c.History = append([]Info(nil), m.History...)
	c.Incr = append([]Info(nil), m.Incr...)
	return &c
}

// NewBase is getNewBaseFileNameAndMarkPreAsHistory: the next base file's
// name (.base.rdb with an RDB preamble, .base.aof without); the old base
// becomes history.
func (m *Manifest) NewBase(rdb bool) string {
	if m.Base != nil {
		h := *m.Base
		h.Type = TypeHistory
		m.History = append([]Info{h}, m.History...)
	}
	suffix := ".aof"
	if rdb {
		suffix = ".rdb"
	}
	m.BaseSeq++
	m.Base = &Info{Name: m.Prefix + "." + strconv.FormatInt(m.BaseSeq, 10) + ".base" + suffix, Seq: m.BaseSeq, Type: TypeBase}
	m.Modified = true
	return m.Base.Name
}

// NewIncr is getNewIncrAofName: a new incremental file at the end.
func (m *Manifest) NewIncr() string {
	m.IncrSeq++
	ai := Info{Name: m.Prefix + "." + strconv.FormatInt(m.IncrSeq, 10) + ".incr.aof", Seq: m.IncrSeq, Type: TypeIncr}
	m.Incr = append(m.Incr, ai)
	m.Modified = true
	return ai.Name
}

// LastIncr is getLastIncrAofName: the last incremental file, made if
// there is none.
func (m *Manifest) LastIncr() string {
	if len(m.Incr) == 0 {
		return m.NewIncr()
	}
	return m.Incr[len(m.Incr)-1].Name
}

// IncrHistory is markRewrittenIncrAofAsHistory: the incremental files a
// rewrite has folded into the new base become history; keepLast keeps
// the one being written.
func (m *Manifest) IncrHistory(keepLast bool) {
	n := len(m.Incr)
	if keepLast && n > 0 {
		n--
	}
	for i := n - 1; i >= 0; i-- {
		h := m.Incr[i]
		h.Type = TypeHistory
		m.History = append([]Info{h}, m.History...)
	}
	m.Incr = append([]Info(nil), m.Incr[n:]...)
	m.Modified = true
}

// TempIncrName is getTempIncrAofName: where writes go while the first
// rewrite after CONFIG SET appendonly yes runs.
func TempIncrName(prefix string) string { return "temp-" + prefix + ".incr" }

// Write is writeAofManifestFile: the manifest to a temporary file, fsync,
// rename over the manifest, fsync the directory. A crash leaves the old
// manifest or the new one.
func (m *Manifest) Write(dir string) error {
	name := ManifestName(m.Prefix)
	tmp := filepath.Join(dir, "temp-"+name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("Can't open the AOF manifest file %s: %w", "temp-"+name, unwrap(err))
	}
	defer f.Close()
	if _, err := f.WriteString(m.String()); err != nil {
		return fmt.Errorf("Error trying to write the temporary AOF manifest file %s: %w", "temp-"+name, unwrap(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("Fail to fsync the temp AOF file %s: %w.", "temp-"+name, unwrap(err))
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("Error trying to rename the temporary AOF manifest file %s into %s: %w", "temp-"+name, name, unwrap(err))
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("Fail to fsync AOF directory %s: %w.", filepath.Join(dir, name), unwrap(err))
	}
	m.Modified = false
	return nil
}

// SyncDir fsyncs a directory, so the renames and new files in it last.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// needsRepr is sdsneedsrepr.
func needsRepr(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' || c == '"' || c == '\n' || c == '\r' || c == '\t' || c == '\a' || c == '\b' || c < 32 || c > 126 || c == ' ' {
			return true
		}
	}
	return false
}

// repr is sdscatrepr.
func repr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString("\\n")
		case '\r':
			b.WriteString("\\r")
		case '\t':
			b.WriteString("\\t")
		case '\a':
			b.WriteString("\\a")
		case '\b':
			b.WriteString("\\b")
		default:
			if c >= 32 && c <= 126 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
