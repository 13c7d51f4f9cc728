package portablejson

import (
	"fmt"
	"math"
	"strconv"
)

// MaxDepth is the deepest nesting a value may have. A value travels inside
// the response (result, results, the op's result object, …) and the
// JSON-RPC message around it, a dozen levels at most, under the go-sdk
// client's limit of 1,000.
const MaxDepth = 512

// Check returns nil when data, which must be valid JSON, nests at most
// MaxDepth levels, holds no number beyond the range of a float64 and no
// \u escape of a lone surrogate; otherwise an error saying which and
// where (the byte offset). It does not check that data is JSON.
func Check(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("it nests deeper than %d levels (at byte %d)", MaxDepth, i)
			}
		case c == '}' || c == ']':
			depth--
		case c == '"':
			end, err := checkString(data, i)
			if err != nil {
				return err
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(data) && isNumberByte(data[j]) {
				j++
			}
			if f, err := strconv.ParseFloat(string(data[i:j]), 64); err != nil && math.IsInf(f, 0) {
				return fmt.Errorf("the number %s at byte %d is beyond the range of a double", excerpt(data[i:j]), i)
			}
			i = j - 1
		}
	}
	return nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// checkString checks the string starting at data[start] (its opening
// quote) and returns the index of its closing quote.
func checkString(data []byte, start int) (int, error) {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				r, ok := hex4(data, i+2)
				switch {
				case ok && r >= 0xD800 && r < 0xDC00:
					// A high surrogate must be followed by \u of a low one.
					if lo, ok := escapeAt(data, i+6); ok && lo >= 0xDC00 && lo < 0xE000 {
						i += 11
						continue
					}
					return 0, fmt.Errorf("the string at byte %d holds \\u%04x, half a surrogate pair", start, r)
				case ok && r >= 0xDC00 && r < 0xE000:
					return 0, fmt.Errorf("the string at byte %d holds \\u%04x, half a surrogate pair", start, r)
				}
				i += 5
				continue
			}
			i++
		}
	}
	return len(data), nil
}

// escapeAt reads a \uXXXX escape at data[i].
func escapeAt(data []byte, i int) (rune, bool) {
	if i+1 >= len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	return hex4(data, i+2)
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[i:i+4]), 16, 32)
	return rune(n), err == nil
}

func excerpt(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
