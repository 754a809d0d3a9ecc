// Package keyslot maps keys to Redis Cluster hash slots, as Redis 7.0's
// keyHashSlot (cluster.c) and crc16 (crc16.c) do: the specification is
// that source, and a limitkv node must agree with every Redis node on the
// slot of every key, binary keys included, or the cluster would send a
// key to two owners. The package knows nothing of servers or commands.
package keyslot

import "bytes"

// Slots is the number of hash slots in a cluster (CLUSTER_SLOTS).
const Slots = 16384

// Slot returns key's hash slot. When the key holds a hash tag, a '{'
// followed later by a '}' with at least one byte between them, only the
// bytes between the first '{' and the first '}' after it are hashed, so
// that "{user1}.name" and "{user1}.mail" share a slot. An empty tag ("{}")
// or a '{' with no '}' after it leaves the whole key hashed.
func Slot(key []byte) uint16 {
	if s := bytes.IndexByte(key, '{'); s >= 0 {
		if e := bytes.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return CRC16(key) & (Slots - 1)
}

// CRC16 is the CRC-16/XMODEM checksum crc16.c computes (polynomial 0x1021,
// initial value 0, no reflection, no final XOR). CRC16("123456789") is
// 0x31C3.
func CRC16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^c]
	}
	return crc
}

// crcTable is crc16.c's crc16tab, computed rather than copied: entry i is
// the CRC of the single byte i, shifted through the polynomial bit by bit.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()
