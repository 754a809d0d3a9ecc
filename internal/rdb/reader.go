package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ReaderOptions configure a Reader. The zero value is suitable for files a
// Redis with default settings writes.
type ReaderOptions struct {
	// MaxStringLen bounds any one string or encoded blob, compressed or not
	// (default 512 MiB, proto-max-bulk-len's default).
	MaxStringLen int64
	// Databases is the number of databases; a SELECTDB at or past it is
	// refused as Redis refuses it (default 16).
	Databases int
	// SkipChecksum skips the CRC-64 check at the end of the file.
	SkipChecksum bool
	// Limits decide the Encoding reported for each value: the one a Redis
	// with these settings would hold after loading it.
	Limits Limits
}

func (o *ReaderOptions) withDefaults() ReaderOptions {
	var r ReaderOptions
	if o != nil {
		r = *o
	}
	if r.MaxStringLen <= 0 {
		r.MaxStringLen = 512 << 20
	}
	if r.Databases <= 0 {
		r.Databases = 16
	}
	return r
}

// Reader reads an RDB file entry by entry.
type Reader struct {
	d       decoder
	opts    ReaderOptions
	version int
	db      int
	done    bool
	err     error

	// Aux holds the aux fields read so far, in file order.
	Aux []AuxField
	// Functions holds the function libraries read so far (FUNCTION2 payloads;
	// pre-release FUNCTION records are converted to the same form, as Redis
	// does). Redis writes them before any key.
	Functions [][]byte
	// ModuleAuxSkipped counts the module aux records skipped.
	ModuleAuxSkipped int
	// EmptyKeysSkipped counts keys with an empty value, skipped as Redis does.
	EmptyKeysSkipped int
	// ResizeHints holds the RESIZEDB hints: database -> {keys, expires}.
	ResizeHints map[int][2]uint64
}

// NewReader reads the header ("REDIS" and a version from 1 to 10).
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	o := opts.withDefaults()
	rd := &Reader{opts: o, ResizeHints: map[int][2]uint64{}}
	var br byteReader
	if b, ok := r.(byteReader); ok {
		br = b // bytes.Reader, bufio.Reader, ...
	} else {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	rd.d = decoder{r: br, max: o.MaxStringLen, crcOn: true, limits: o.Limits.withDefaults()}
	var magic [9]byte
	if err := rd.d.full(magic[:]); err != nil {
		return nil, err
	}
	if !bytes.Equal(magic[:5], []byte("REDIS")) {
		return nil, fmt.Errorf("%w: wrong signature %q", ErrCorrupt, magic[:5])
	}
	ver := 0
	for _, c := range magic[5:] {
		if c < '0' || c > '9' {
			return nil, fmt.Errorf("%w: bad version %q", ErrVersion, magic[5:])
		}
		ver = ver*10 + int(c-'0')
	}
	if ver < 1 || ver > Version {
		return nil, fmt.Errorf("%w: %d", ErrVersion, ver)
	}
	rd.version = ver
	return rd, nil
}

// Version is the file's RDB version.
func (r *Reader) Version() int { return r.version }

// Next returns the next key. At the end of the file, after the checksum was
// verified, it returns io.EOF. Any other error is final.
func (r *Reader) Next() (*Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		if err == io.EOF {
			r.done = true
		}
	}
	return e, err
}

func (r *Reader) next() (*Entry, error) {
	d := &r.d
	ent := &Entry{}
	for {
		typ, err := d.u8()
		if err != nil {
			return nil, err
		}
		switch typ {
		case opExpireSec:
			var b [4]byte
			if err := d.full(b[:]); err != nil {
				return nil, err
			}
			ent.Expire = int64(int32(binary.LittleEndian.Uint32(b[:]))) * 1000
			ent.HasExpire = true
			continue
		case opExpireMs:
			var b [8]byte
			if err := d.full(b[:]); err != nil {
				return nil, err
			}
			ent.Expire = int64(binary.LittleEndian.Uint64(b[:]))
			ent.HasExpire = true
			continue
		case opFreq:
			b, err := d.u8()
			if err != nil {
				return nil, err
			}
			ent.LFUFreq, ent.HasLFUFreq = b, true
			continue
		case opIdle:
			n, err := d.length()
			if err != nil {
				return nil, err
			}
			ent.LRUIdle, ent.HasLRUIdle = n, true
			continue
		case opEOF:
			return nil, r.finish()
		case opSelectDB:
			n, err := d.length()
			if err != nil {
				return nil, err
			}
			if n >= uint64(r.opts.Databases) {
				return nil, fmt.Errorf("%w: SELECTDB %d, but there are %d databases", ErrCorrupt, n, r.opts.Databases)
			}
			r.db = int(n)
			continue
		case opResizeDB:
			a, err := d.length()
			if err != nil {
				return nil, err
			}
			b, err := d.length()
			if err != nil {
				return nil, err
			}
			r.ResizeHints[r.db] = [2]uint64{a, b}
			continue
		case opAux:
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			v, err := d.str()
			if err != nil {
				return nil, err
			}
			r.Aux = append(r.Aux, AuxField{Key: k, Value: v})
			continue
		case opModuleAux:
			if err := d.skipModuleAux(); err != nil {
				return nil, err
			}
			r.ModuleAuxSkipped++
			continue
		case opFunction2:
			code, err := d.str()
			if err != nil {
				return nil, err
			}
			r.Functions = append(r.Functions, code)
			continue
		case opFunction:
			code, err := d.oldFunction()
			if err != nil {
				return nil, err
			}
			r.Functions = append(r.Functions, code)
			continue
		}
		if !isObjectType(typ) {
			return nil, fmt.Errorf("%w: unknown record type %d", ErrCorrupt, typ)
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		ent.DB = r.db
		ent.Key = key
		empty, err := d.object(typ, &ent.Value)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", truncKey(key), err)
		}
		if empty {
			r.EmptyKeysSkipped++
			ent = &Entry{}
			continue
		}
		return ent, nil
	}
}

func truncKey(k []byte) []byte {
	if len(k) > 64 {
		return k[:64]
	}
	return k
}

func isObjectType(t byte) bool { return t <= 7 || (t >= 9 && t <= 19) }

// finish reads and checks the checksum after EOF.
func (r *Reader) finish() error {
	if r.version < 5 {
		return io.EOF
	}
	expected := r.d.crc
	var b [8]byte
	if err := r.d.full(b[:]); err != nil {
		return err
	}
	got := binary.LittleEndian.Uint64(b[:])
	if got != 0 && !r.opts.SkipChecksum && got != expected {
		return fmt.Errorf("%w: file has %016x, content gives %016x", ErrChecksum, got, expected)
	}
	return io.EOF
}

// Decode reads a whole RDB file.
func Decode(r io.Reader, opts *ReaderOptions) (*Snapshot, error) {
	rd, err := NewReader(r, opts)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Version: rd.version}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s.Entries = append(s.Entries, *e)
	}
	s.Aux, s.Functions = rd.Aux, rd.Functions
	return s, nil
}

// VerifyDump checks a DUMP payload's footer as RESTORE does: at least 10
// bytes, an RDB version not above 10, and (unless skipChecksum) the CRC-64.
// It returns the version found. Its errors wrap ErrBadDumpPayload (RESTORE's
// "DUMP payload version or checksum are wrong") and ErrVersion or ErrChecksum.
func VerifyDump(payload []byte, skipChecksum bool) (uint16, error) {
	if len(payload) < 10 {
		return 0, fmt.Errorf("%w (%w: shorter than its footer)", ErrBadDumpPayload, ErrChecksum)
	}
	footer := payload[len(payload)-10:]
	ver := binary.LittleEndian.Uint16(footer)
	if ver > Version {
		return ver, fmt.Errorf("%w (%w: %d)", ErrBadDumpPayload, ErrVersion, ver)
	}
	if !skipChecksum && CRC64(0, payload[:len(payload)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return ver, fmt.Errorf("%w (%w)", ErrBadDumpPayload, ErrChecksum)
	}
	return ver, nil
}

// ErrBadDumpPayload is wrapped by the errors of a DUMP payload's footer.
var ErrBadDumpPayload = errors.New("DUMP payload version or checksum are wrong")

// DecodeDump verifies and decodes a DUMP payload (as RESTORE reads it).
// Errors wrapping ErrBadDumpPayload are RESTORE's "DUMP payload version or
// checksum are wrong"; any other error (wrapping ErrCorrupt or
// ErrUnsupported) is RESTORE's "Bad data format". As Redis, bytes left over
// between the value and the footer are ignored.
func DecodeDump(payload []byte, opts *ReaderOptions) (*Value, error) {
	o := opts.withDefaults()
	if _, err := VerifyDump(payload, o.SkipChecksum); err != nil {
		return nil, err
	}
	body := payload[:len(payload)-10]
	d := decoder{r: bytes.NewReader(body), max: o.MaxStringLen, limits: o.Limits.withDefaults()}
	typ, err := d.u8()
	if err != nil {
		return nil, err
	}
	if !isObjectType(typ) {
		return nil, fmt.Errorf("%w: unknown type %d", ErrCorrupt, typ)
	}
	v := &Value{}
	empty, err := d.object(typ, v)
	if err != nil {
		return nil, err
	}
	if empty {
		return nil, fmt.Errorf("%w: empty value", ErrCorrupt)
	}
	return v, nil
}

type byteReader interface {
	io.Reader
	io.ByteReader
}

// decoder reads RDB items from a stream, updating the running CRC.
type decoder struct {
	r      byteReader
	crc    uint64
	crcOn  bool
	max    int64
	limits Limits
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: unexpected end of data", ErrCorrupt)
	}
	return err
}

func (d *decoder) full(b []byte) error {
	if _, err := io.ReadFull(d.r, b); err != nil {
		return truncated(err)
	}
	if d.crcOn {
		d.crc = CRC64(d.crc, b)
	}
	return nil
}

func (d *decoder) u8() (byte, error) {
	b, err := d.r.ReadByte()
	if err != nil {
		return 0, truncated(err)
	}
	if d.crcOn {
		d.crc = crcTables[0][byte(d.crc)^b] ^ d.crc>>8
	}
	return b, nil
}

// bytesN reads n bytes, growing the buffer as data arrives so that a huge
// bogus length fails at the end of the input instead of allocating it.
func (d *decoder) bytesN(n uint64) ([]byte, error) {
	if n > uint64(d.max) {
		return nil, fmt.Errorf("%w: length %d over the limit %d", ErrCorrupt, n, d.max)
	}
	const chunk = 1 << 20
	if n <= chunk {
		b := make([]byte, n)
		return b, d.full(b)
	}
	b := make([]byte, 0, chunk)
	for uint64(len(b)) < n {
		k := min(n-uint64(len(b)), chunk)
		b = append(b, make([]byte, k)...)
		if err := d.full(b[len(b)-int(k):]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// lengthOrEnc reads an RDB length; enc reports the special string encodings.
func (d *decoder) lengthOrEnc() (n uint64, enc bool, err error) {
	b, err := d.u8()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3f), false, nil
	case 1:
		c, err := d.u8()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3f)<<8 | uint64(c), false, nil
	case 3:
		return uint64(b & 0x3f), true, nil
	}
	switch b {
	case 0x80:
		var x [4]byte
		if err := d.full(x[:]); err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(x[:])), false, nil
	case 0x81:
		var x [8]byte
		if err := d.full(x[:]); err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(x[:]), false, nil
	}
	return 0, false, fmt.Errorf("%w: unknown length encoding 0x%02x", ErrCorrupt, b)
}

func (d *decoder) length() (uint64, error) {
	n, enc, err := d.lengthOrEnc()
	if err == nil && enc {
		return 0, fmt.Errorf("%w: encoded value where a length was expected", ErrCorrupt)
	}
	return n, err
}

// str reads a string in any of its forms (plain, integer, LZF).
func (d *decoder) str() ([]byte, error) {
	n, enc, err := d.lengthOrEnc()
	if err != nil {
		return nil, err
	}
	if !enc {
		return d.bytesN(n)
	}
	switch n {
	case 0:
		b, err := d.u8()
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(b)), 10), nil
	case 1:
		var x [2]byte
		if err := d.full(x[:]); err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(x[:]))), 10), nil
	case 2:
		var x [4]byte
		if err := d.full(x[:]); err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(x[:]))), 10), nil
	case 3:
		clen, err := d.length()
		if err != nil {
			return nil, err
		}
		ulen, err := d.length()
		if err != nil {
			return nil, err
		}
		if ulen > uint64(d.max) {
			return nil, fmt.Errorf("%w: LZF length %d over the limit %d", ErrCorrupt, ulen, d.max)
		}
		c, err := d.bytesN(clen)
		if err != nil {
			return nil, err
		}
		// A 3-byte back reference expands to at most 264 bytes.
		if ulen > uint64(len(c))*88 {
			return nil, errLZFWrap
		}
		out, err := lzfDecompress(c, int(ulen))
		if err != nil {
			return nil, errLZFWrap
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown string encoding %d", ErrCorrupt, n)
}

var errLZFWrap = fmt.Errorf("%w: invalid LZF compressed string", ErrCorrupt)

// count reads an element count; each element needs at least one byte, so
// preallocation is bounded separately (see capHint).
func (d *decoder) count() (uint64, error) { return d.length() }

func capHint(n uint64) int { return int(min(n, 1024)) }

func (d *decoder) binaryDouble() (float64, error) {
	var x [8]byte
	if err := d.full(x[:]); err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(x[:])), nil
}

// asciiDouble reads an old-style (RDB < 8) score: a length byte with 253
// NaN, 254 +inf, 255 -inf, else that many characters.
func (d *decoder) asciiDouble() (float64, error) {
	n, err := d.u8()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b := make([]byte, n)
	if err := d.full(b); err != nil {
		return 0, err
	}
	f, ok := parseScore(b)
	if !ok {
		return 0, fmt.Errorf("%w: bad score %q", ErrCorrupt, b)
	}
	return f, nil
}

// parseScore parses a score written as text (%.17g, inf, -inf).
func parseScore(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true // overflow gives ±Inf, underflow 0, as strtod
		}
		return 0, false
	}
	return f, true
}

// skipModuleAux skips a MODULE_AUX record: module id, when opcode and value,
// then the module's opcode-tagged values up to the EOF opcode.
func (d *decoder) skipModuleAux() error {
	if _, err := d.length(); err != nil { // module id
		return err
	}
	op, err := d.length()
	if err != nil {
		return err
	}
	if op != 2 { // RDB_MODULE_OPCODE_UINT
		return fmt.Errorf("%w: bad module aux when opcode", ErrCorrupt)
	}
	if _, err := d.length(); err != nil {
		return err
	}
	for {
		op, err := d.length()
		if err != nil {
			return err
		}
		switch op {
		case 0: // EOF
			return nil
		case 1, 2: // signed, unsigned integer
			_, err = d.length()
		case 3: // float
			var x [4]byte
			err = d.full(x[:])
		case 4: // double
			var x [8]byte
			err = d.full(x[:])
		case 5: // string
			_, err = d.str()
		default:
			return fmt.Errorf("%w: unknown module opcode %d", ErrCorrupt, op)
		}
		if err != nil {
			return err
		}
	}
}

// oldFunction reads a FUNCTION record of Redis 7.0 release candidates and
// turns it into the FUNCTION2 form.
func (d *decoder) oldFunction() ([]byte, error) {
	name, err := d.str()
	if err != nil {
		return nil, err
	}
	engine, err := d.str()
	if err != nil {
		return nil, err
	}
	hasDesc, err := d.length()
	if err != nil {
		return nil, err
	}
	if hasDesc != 0 {
		if _, err := d.str(); err != nil {
			return nil, err
		}
	}
	blob, err := d.str()
	if err != nil {
		return nil, err
	}
	out := fmt.Appendf(nil, "#!%s name=%s\n", engine, name)
	return append(out, blob...), nil
}

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// object reads a value of RDB type typ into v. empty reports a value with
// no elements, which Redis skips.
func (d *decoder) object(typ byte, v *Value) (empty bool, err error) {
	switch typ {
	case rdbTypeString:
		s, err := d.str()
		if err != nil {
			return false, err
		}
		*v = Value{Type: TypeString, Encoding: EncodingRaw, String: s}
		return false, nil
	case rdbTypeList:
		n, err := d.count()
		if err != nil {
			return false, err
		}
		list := make([][]byte, 0, capHint(n))
		for i := uint64(0); i < n; i++ {
			s, err := d.str()
			if err != nil {
				return false, err
			}
			list = append(list, s)
		}
		*v = Value{Type: TypeList, Encoding: EncodingQuicklist, List: list}
		return n == 0, nil
	case rdbTypeSet:
		n, err := d.count()
		if err != nil {
			return false, err
		}
		set := make([][]byte, 0, capHint(n))
		seen := make(map[string]struct{}, capHint(n))
		allInt := true
		for i := uint64(0); i < n; i++ {
			s, err := d.str()
			if err != nil {
				return false, err
			}
			if _, dup := seen[string(s)]; dup {
				return false, corrupt("duplicate set members detected")
			}
			seen[string(s)] = struct{}{}
			if allInt {
				_, allInt = parseLongLong(s)
			}
			set = append(set, s)
		}
		enc := EncodingHashtable
		if allInt && n <= uint64(d.limits.SetMaxIntsetEntries) {
			enc = EncodingIntset
		}
		*v = Value{Type: TypeSet, Encoding: enc, Set: set}
		return n == 0, nil
	case rdbTypeZSet, rdbTypeZSet2:
		n, err := d.count()
		if err != nil {
			return false, err
		}
		z := make([]ZMember, 0, capHint(n))
		seen := make(map[string]struct{}, capHint(n))
		for i := uint64(0); i < n; i++ {
			m, err := d.str()
			if err != nil {
				return false, err
			}
			var score float64
			if typ == rdbTypeZSet2 {
				score, err = d.binaryDouble()
			} else {
				score, err = d.asciiDouble()
			}
			if err != nil {
				return false, err
			}
			if math.IsNaN(score) {
				return false, corrupt("zset with NAN score detected")
			}
			if _, dup := seen[string(m)]; dup {
				return false, corrupt("duplicate zset fields detected")
			}
			seen[string(m)] = struct{}{}
			z = append(z, ZMember{Member: m, Score: score})
		}
		*v = Value{Type: TypeZSet, Encoding: EncodingSkiplist, ZSet: z}
		v.Encoding = AutoEncoding(v, d.limits) // Redis converts small ones after loading
		return n == 0, nil
	case rdbTypeHash:
		n, err := d.count()
		if err != nil {
			return false, err
		}
		h := make([]HashField, 0, capHint(n))
		seen := make(map[string]struct{}, capHint(n))
		for i := uint64(0); i < n; i++ {
			f, err := d.str()
			if err != nil {
				return false, err
			}
			val, err := d.str()
			if err != nil {
				return false, err
			}
			if _, dup := seen[string(f)]; dup {
				return false, corrupt("duplicate hash fields detected")
			}
			seen[string(f)] = struct{}{}
			h = append(h, HashField{Field: f, Value: val})
		}
		*v = Value{Type: TypeHash, Hash: h}
		v.Encoding = AutoEncoding(v, d.limits)
		return n == 0, nil
	case rdbTypeListQuicklist, rdbTypeListQuicklist2:
		n, err := d.count()
		if err != nil {
			return false, err
		}
		var list [][]byte
		for i := uint64(0); i < n; i++ {
			container := uint64(quicklistPacked)
			if typ == rdbTypeListQuicklist2 {
				if container, err = d.length(); err != nil {
					return false, err
				}
				if container != quicklistPacked && container != quicklistPlain {
					return false, corrupt("quicklist integrity check failed")
				}
			}
			blob, err := d.str()
			if err != nil {
				return false, err
			}
			if len(blob) == 0 {
				return false, corrupt("empty quicklist node")
			}
			if container == quicklistPlain {
				list = append(list, blob)
				continue
			}
			var elems [][]byte
			if typ == rdbTypeListQuicklist2 {
				elems, err = DecodeListpack(blob)
			} else {
				elems, err = DecodeZiplist(blob)
			}
			if err != nil {
				return false, fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			list = append(list, elems...)
		}
		*v = Value{Type: TypeList, Encoding: EncodingQuicklist, List: list}
		return len(list) == 0, nil
	case rdbTypeHashZipmap, rdbTypeListZiplist, rdbTypeSetIntset, rdbTypeZSetZiplist,
		rdbTypeHashZiplist, rdbTypeHashListpack, rdbTypeZSetListpack:
		blob, err := d.str()
		if err != nil {
			return false, err
		}
		return decodeBlob(typ, blob, v, d.limits)
	case rdbTypeStreamListpacks, rdbTypeStreamListpack2:
		return false, d.streamValue(typ, v)
	case rdbTypeModule, rdbTypeModule2:
		return false, fmt.Errorf("%w: module value (RDB type %d)", ErrUnsupported, typ)
	}
	return false, corrupt("unknown RDB type %d", typ)
}

// decodeBlob decodes the single-string encodings.
func decodeBlob(typ byte, blob []byte, v *Value, l Limits) (bool, error) {
	var elems [][]byte
	var err error
	switch typ {
	case rdbTypeHashZipmap:
		elems, err = DecodeZipmap(blob)
	case rdbTypeListZiplist, rdbTypeZSetZiplist, rdbTypeHashZiplist:
		elems, err = DecodeZiplist(blob)
	case rdbTypeSetIntset:
		elems, err = DecodeIntset(blob)
	default:
		elems, err = DecodeListpack(blob)
	}
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	switch typ {
	case rdbTypeListZiplist:
		*v = Value{Type: TypeList, Encoding: EncodingQuicklist, List: elems}
		return len(elems) == 0, nil
	case rdbTypeSetIntset:
		*v = Value{Type: TypeSet, Encoding: EncodingIntset, Set: elems}
		if len(elems) > l.SetMaxIntsetEntries {
			v.Encoding = EncodingHashtable
		}
		return false, nil
	}
	if len(elems)%2 != 0 {
		return false, corrupt("odd number of elements in a pair encoding")
	}
	seen := make(map[string]struct{}, len(elems)/2)
	for i := 0; i < len(elems); i += 2 {
		if _, dup := seen[string(elems[i])]; dup {
			return false, corrupt("duplicate fields in an encoded hash or sorted set")
		}
		seen[string(elems[i])] = struct{}{}
	}
	switch typ {
	case rdbTypeZSetZiplist, rdbTypeZSetListpack:
		z := make([]ZMember, 0, len(elems)/2)
		for i := 0; i < len(elems); i += 2 {
			s, ok := parseScore(elems[i+1])
			if !ok || math.IsNaN(s) {
				return false, corrupt("bad score %q", elems[i+1])
			}
			z = append(z, ZMember{Member: elems[i], Score: s})
		}
		*v = Value{Type: TypeZSet, Encoding: EncodingListpack, ZSet: z}
		if len(z) > l.ZSetMaxListpackEntries {
			v.Encoding = EncodingSkiplist
		}
		return len(z) == 0, nil
	default: // hashes
		h := make([]HashField, 0, len(elems)/2)
		for i := 0; i < len(elems); i += 2 {
			h = append(h, HashField{Field: elems[i], Value: elems[i+1]})
		}
		*v = Value{Type: TypeHash, Encoding: EncodingListpack, Hash: h}
		if len(h) > l.HashMaxListpackEntries {
			v.Encoding = EncodingHashtable
		}
		if typ == rdbTypeHashZipmap {
			v.Encoding = AutoEncoding(v, l)
		}
		return len(h) == 0, nil
	}
}
