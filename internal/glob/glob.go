// Package glob is Redis's glob matcher (util.c's stringmatchlen), shared by
// KEYS, SCAN MATCH, CONFIG GET, PSUBSCRIBE and ACL key and channel patterns.
package glob

// Match reports whether str matches the glob pattern exactly as Redis
// 7.0's stringmatchlen (util.c) decides, for KEYS, SCAN MATCH and CONFIG GET
// (which passes nocase): '*', '?', '[...]' classes with '^' negation, ranges
// and '\' escapes, and '\' escaping any character outside a class.
//
// The port keeps Redis's quirks because clients see them: an unterminated
// class ends at the pattern's end ("[a" matches "a", "[^" matches any one
// byte), a range's ends may come in either order, bytes compare as C's
// signed char inside ranges, and recursion deeper than 1000 stars fails the
// match instead of exhausting the stack.
func Match[S string | []byte](pattern []byte, str S, nocase bool) bool {
	skip := false
	return globMatchImpl(pattern, str, nocase, &skip, 0)
}

// CLower is C's tolower in the "C" locale: only ASCII letters change.
func CLower(c int) int {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// globMatchImpl mirrors stringmatchlen_impl with indices in place of pointer
// arithmetic. at(i) reads the pattern as the C code does, including the NUL
// that terminates every Redis string one past its end. skip is Redis's
// skipLongerMatches: once the rest of the pattern after a star failed against
// every suffix, an earlier star cannot do better.
func globMatchImpl[S string | []byte](pat []byte, str S, nocase bool, skip *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	at := func(i int) byte {
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	p, plen := 0, len(pat)
	s, slen := 0, len(str)
	for plen > 0 && slen > 0 {
		switch pat[p] {
		case '*':
			for plen > 0 && at(p+1) == '*' {
				p++
				plen--
			}
			if plen == 1 {
				return true
			}
			for slen > 0 {
				if globMatchImpl(pat[p+1:p+plen], str[s:s+slen], nocase, skip, nesting+1) {
					return true
				}
				if *skip {
					return false
				}
				s++
				slen--
			}
			*skip = true
			return false
		case '?':
			s++
			slen--
		case '[':
			p++
			plen--
			not := at(p) == '^'
			if not {
				p++
				plen--
			}
			match := false
			for {
				if at(p) == '\\' && plen >= 2 {
					p++
					plen--
					if at(p) == str[s] {
						match = true
					}
				} else if at(p) == ']' {
					break
				} else if plen == 0 {
					p--
					plen++
					break
				} else if plen >= 3 && at(p+1) == '-' {
					// C compares these as (signed) char promoted to int.
					start, end, c := int(int8(at(p))), int(int8(at(p+2))), int(int8(str[s]))
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = CLower(start), CLower(end), CLower(c)
					}
					p += 2
					plen -= 2
					if c >= start && c <= end {
						match = true
					}
				} else if nocase {
					if CLower(int(at(p))) == CLower(int(str[s])) {
						match = true
					}
				} else if at(p) == str[s] {
					match = true
				}
				p++
				plen--
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s++
			slen--
		case '\\':
			if plen >= 2 {
				p++
				plen--
			}
			fallthrough
		default:
			if nocase {
				if CLower(int(at(p))) != CLower(int(str[s])) {
					return false
				}
			} else if at(p) != str[s] {
				return false
			}
			s++
			slen--
		}
		p++
		plen--
		if slen == 0 {
			for at(p) == '*' {
				p++
				plen--
			}
			break
		}
	}
	return plen == 0 && slen == 0
}
