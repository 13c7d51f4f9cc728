package verbsurface

import (
	"strings"
	"unicode"
)

// The fence must not be defeated by a spelling. A model (or whoever steers
// it) can write "State.Migrate", " state migrate ", "ｓｔａｔｅ/ｍｉｇｒａｔｅ",
// "stаte_migrate" with a Cyrillic а, or slip a zero-width space into the
// name. Go's standard library has no NFKC, so foldName applies a small
// compatibility and confusables fold covering the characters that matter
// for command names: fullwidth and mathematical forms, Cyrillic and Greek
// letters that look like latin ones, invisible characters, combining marks,
// and the many dots, slashes, hyphens and underscores. Over-folding is the
// safe direction here: foldName is only ever used to decide whether a name
// is fenced (a false match refuses, it never grants).
//
// What the fold is not: the boundary. A name reaches a command only by
// being exactly a registered verb (or a live v1 synonym), and the registry
// refuses to register a fenced path, so an unregistered spelling, however
// close to "state migrate", runs nothing whether the fold catches it or
// not. The fold only chooses between two refusals of such a name:
// not_allowed (a human-at-a-terminal command, never offered) instead of
// unknown_verb (whose close matches could otherwise name the fenced one).

// foldTokens folds name and splits it into its path tokens: every run of
// separators (space, dot, slash, backslash, underscore, hyphen, colon and
// their look-alikes) splits. The tokens are lowercase latin where a
// look-alike was given.
func foldTokens(name string) []string {
	var tokens []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			tokens = append(tokens, b.String())
			b.Reset()
		}
	}
	for _, r := range name {
		switch c := foldRune(r); c {
		case 0: // invisible: dropped without splitting
		case ' ':
			flush()
		default:
			b.WriteRune(c)
		}
	}
	flush()
	return tokens
}

// foldRune maps one rune to its folded form: 0 drops it, ' ' is a
// separator, anything else is the (lowercased) character to keep.
func foldRune(r rune) rune {
	switch {
	case r < 0x80:
		switch r {
		case '.', '/', '\\', '_', '-', ':', '|', ',', ';':
			return ' '
		}
		if unicode.IsSpace(r) {
			return ' '
		}
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		if r < 0x20 || r == 0x7f {
			return 0
		}
		return r
	case 0xFF01 <= r && r <= 0xFF5E: // fullwidth ASCII
		return foldRune(r - 0xFEE0)
	}
	if c, ok := confusables[r]; ok {
		return c
	}
	if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Cf, r) {
		return 0 // combining marks, zero-width and other format characters
	}
	if unicode.IsSpace(r) || unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Zs, r) {
		return ' '
	}
	if c, ok := foldMathAlnum(r); ok {
		return c
	}
	return unicode.ToLower(r)
}

// foldMathAlnum folds the Mathematical Alphanumeric Symbols block (𝐬𝐭𝐚𝐭𝐞,
// 𝓈𝓉𝒶𝓉ℯ, 𝚜𝚝𝚊𝚝𝚎 ...): 13 alphabets of 52 letters each, then digits.
func foldMathAlnum(r rune) (rune, bool) {
	switch {
	case 0x1D400 <= r && r <= 0x1D6A3:
		i := (r - 0x1D400) % 52
		if i < 26 {
			return 'a' + i, true
		}
		return 'a' + i - 26, true
	case 0x1D7CE <= r && r <= 0x1D7FF:
		return '0' + (r-0x1D7CE)%10, true
	}
	return 0, false
}

// confusables maps characters that render like latin letters, digits or
// separators to what they look like. Lowercase and uppercase forms are
// both listed because folding happens before lowercasing would help.
var confusables = map[rune]rune{
	// Separators that look like . / - _ or a space.
	'\u00B7': ' ', '\u2024': ' ', '\u2027': ' ', '\u2219': ' ', '\u22C5': ' ',
	'\u3002': ' ', '\uFF61': ' ', '\u0701': ' ', '\u0702': ' ', '\uA4F8': ' ',
	'\u2215': ' ', '\u2044': ' ', '\u29F8': ' ', '\u29F9': ' ', '\u2571': ' ',
	'\u2572': ' ', '\u3033': ' ', '\u30CE': ' ', '\u4E3F': ' ', '\u2216': ' ',
	'\uFE68': ' ', '\u2212': ' ', '\u2043': ' ', '\u02D7': ' ', '\u2796': ' ',
	'\u2017': ' ', '\u02CD': ' ', '\uFE4D': ' ', '\uFE4E': ' ', '\uFE4F': ' ',
	'\u2236': ' ', '\u0589': ' ', '\u05C3': ' ', '\uFE13': ' ', '\uFE55': ' ',
	'\u3000': ' ', '\u00A0': ' ', '\u2007': ' ', '\u202F': ' ',
	// Invisible characters not in category Cf.
	'\u115F': 0, '\u1160': 0, '\u3164': 0, '\uFFA0': 0, '\u2800': 0,
	// Cyrillic look-alikes.
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd',
	'е': 'e', 'Е': 'e', 'ё': 'e', 'һ': 'h', 'Н': 'h', 'і': 'i', 'І': 'i',
	'ї': 'i', 'ј': 'j', 'Ј': 'j', 'к': 'k', 'К': 'k', 'ӏ': 'l', 'Ӏ': 'l',
	'м': 'm', 'М': 'm', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q',
	'г': 'r', 'ѕ': 's', 'Ѕ': 's', 'т': 't', 'Т': 't', 'ц': 'u', 'ѵ': 'v',
	'ԝ': 'w', 'Ԝ': 'w', 'х': 'x', 'Х': 'x', 'у': 'y', 'У': 'y', 'ү': 'y',
	'Ү': 'y', 'ԍ': 'g', 'п': 'n', 'ո': 'n', 'ս': 'u', 'օ': 'o',
	// Greek look-alikes.
	'α': 'a', 'Α': 'a', 'β': 'b', 'Β': 'b', 'ε': 'e', 'Ε': 'e', 'Ζ': 'z',
	'η': 'n', 'Η': 'h', 'ι': 'i', 'Ι': 'i', 'κ': 'k', 'Κ': 'k', 'Μ': 'm',
	'ν': 'v', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'ρ': 'p', 'Ρ': 'p', 'τ': 't',
	'Τ': 't', 'υ': 'u', 'Υ': 'y', 'χ': 'x', 'Χ': 'x', 'ϲ': 'c', 'Ϲ': 'c',
	'ϳ': 'j', 'ς': 's', 'γ': 'y', 'ω': 'w',
	// Latin compatibility and special letters.
	'ı': 'i', 'ſ': 's', 'ℓ': 'l', '\u212A': 'k', '\u212B': 'a', 'ℯ': 'e',
	'ℊ': 'g', 'ℎ': 'h', 'ℴ': 'o', 'ⅰ': 'i', 'Ⅰ': 'i', 'ⅼ': 'l', 'Ⅼ': 'l',
	'ⅽ': 'c', 'Ⅽ': 'c', 'ⅾ': 'd', 'Ⅾ': 'd', 'ⅿ': 'm', 'Ⅿ': 'm', 'ⅴ': 'v',
	'Ⅴ': 'v', 'ⅹ': 'x', 'Ⅹ': 'x', 'ɡ': 'g', 'ɑ': 'a', 'ʏ': 'y', 'ᴀ': 'a',
	'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i',
	'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p',
	'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z',
	// Circled and parenthesised letters are rare in names but cheap to fold.
	'ⓐ': 'a', 'ⓔ': 'e', 'ⓘ': 'i', 'ⓖ': 'g', 'ⓜ': 'm', 'ⓝ': 'n', 'ⓞ': 'o',
	'ⓟ': 'p', 'ⓡ': 'r', 'ⓢ': 's', 'ⓣ': 't', 'ⓤ': 'u', 'ⓗ': 'h', 'ⓚ': 'k',
	'ⓛ': 'l',
}
