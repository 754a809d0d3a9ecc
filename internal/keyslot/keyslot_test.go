package keyslot

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/testredis"
)

// TestSlot holds Slot to the slots Redis 7.0.15's CLUSTER KEYSLOT gave for
// these keys, and to the hash-tag rule's equivalences (same says which key
// must land in the same slot, because only its tag is hashed).
func TestSlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want uint16
		same string // "" when the whole key is hashed
	}{
		{key: "", want: 0},
		{key: "foo", want: 12182},
		{key: "bar", want: 5061},
		{key: "123456789", want: 12739},
		{key: "{user1000}.following", want: 3443, same: "user1000"},
		{key: "{user1000}.followers", want: 3443, same: "user1000"},
		{key: "{}", want: 15257},                // empty tag: the whole key
		{key: "{", want: 4092},                  // no '}'
		{key: "}", want: 12090},                 // no '{'
		{key: "{a", want: 10276},                // no '}' after the '{'
		{key: "a{}b", want: 13694},              // empty tag inside the key
		{key: "{{a}}", want: 10276, same: "{a"}, // first '{', first '}' after it
		{key: "foo{bar}{zap}", want: 5061, same: "bar"},
		{key: "foo{}{bar}", want: 8363}, // only the first '{' counts
		{key: "foo{{bar}}zap", want: 4015, same: "{bar"},
		{key: "{a}", want: 15495, same: "a"},
		{key: "}{a}", want: 15495, same: "a"}, // a '}' before the '{' is no end
		{key: "x{y}z", want: 12222, same: "y"},
	} {
		got := Slot([]byte(tc.key))
		if got != tc.want {
			t.Errorf("Slot(%q) = %d, Redis says %d", tc.key, got, tc.want)
		}
		whole := CRC16([]byte(tc.key)) % Slots
		switch {
		case tc.same != "" && got != Slot([]byte(tc.same)):
			t.Errorf("Slot(%q) = %d, not the slot of its tag %q (%d)", tc.key, got, tc.same, Slot([]byte(tc.same)))
		case tc.same == "" && got != whole:
			t.Errorf("Slot(%q) = %d, not the whole key's %d", tc.key, got, whole)
		}
	}
}

// TestSlotBinary: any byte may sit in a key, and only '{' and '}' are
// special.
func TestSlotBinary(t *testing.T) {
	for _, tc := range []struct{ key, same string }{
		{"\x00\xff{\x00}", "\x00"},
		{"\xff{\xfe\x00\xfd}\x80", "\xfe\x00\xfd"},
		{"{\x00\x00}{zz}", "\x00\x00"},
		{"\x7b\x7d\x00", "\x7b\x7d\x00"}, // "{}\x00": empty tag, whole key
	} {
		if got, want := Slot([]byte(tc.key)), CRC16([]byte(tc.same))%Slots; got != want {
			t.Errorf("Slot(%q) = %d, want %d (the hash of %q)", tc.key, got, want, tc.same)
		}
	}
}

// TestCRC16 checks the check value the XMODEM parameters promise and the
// table's first and last rows as crc16.c spells them.
func TestCRC16(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31C3 {
		t.Errorf("CRC16(123456789) = %#04x, want 0x31c3", got)
	}
	first := []uint16{0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7}
	last := []uint16{0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0}
	for i := range 8 {
		if crcTable[i] != first[i] || crcTable[248+i] != last[i] {
			t.Fatalf("crcTable[%d] = %#04x, crcTable[%d] = %#04x; crc16.c has %#04x and %#04x",
				i, crcTable[i], 248+i, crcTable[248+i], first[i], last[i])
		}
	}
}

// TestSlotMatchesRedis asks a real Redis 7.0.15 in cluster mode for the
// slot of a few hundred random keys, binary ones and ones built around
// braces so that tags are common.
func TestSlotMatchesRedis(t *testing.T) {
	testredis.RequireVersion(t, "7.0.")
	bus, err := testredis.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := testredis.StartWith(t, testredis.Options{Dir: dir, Args: []string{
		"--cluster-enabled", "yes", "--cluster-config-file", dir + "/nodes.conf",
		"--cluster-port", strconv.Itoa(bus)}})
	c, err := net.DialTimeout("tcp", p.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))

	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("{}{}ab\x00\xff")
	var keys [][]byte
	for i := range 400 {
		k := make([]byte, rng.IntN(24))
		for j := range k {
			if i%2 == 0 {
				k[j] = alphabet[rng.IntN(len(alphabet))]
			} else {
				k[j] = byte(rng.Uint32())
			}
		}
		keys = append(keys, k)
	}
	// Pipeline every query, then read the answers in order.
	w := bufio.NewWriter(c)
	for _, k := range keys {
		fmt.Fprintf(w, "*3\r\n$7\r\nCLUSTER\r\n$7\r\nKEYSLOT\r\n$%d\r\n%s\r\n", len(k), k)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	for _, k := range keys {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if len(line) < 4 || line[0] != ':' {
			t.Fatalf("CLUSTER KEYSLOT %q: reply %q", k, line)
		}
		want, err := strconv.Atoi(line[1 : len(line)-2])
		if err != nil {
			t.Fatal(err)
		}
		if got := Slot(k); int(got) != want {
			t.Errorf("Slot(%q) = %d, Redis says %d", k, got, want)
		}
	}
}

func BenchmarkSlot(b *testing.B) {
	for _, k := range []string{"user:1000:profile", "{user1000}.following", "a-rather-longer-key-of-some-sixty-four-bytes-to-hash-for-a-bench"} {
		key := []byte(k)
		b.Run(strconv.Itoa(len(key)), func(b *testing.B) {
			b.SetBytes(int64(len(key)))
			for b.Loop() {
				Slot(key)
			}
		})
	}
}
