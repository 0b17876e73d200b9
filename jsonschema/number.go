package jsonschema

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// decimal is an exact JSON number: the value is ±0.digits × 10^mag, with
// no leading or trailing zeros in digits ("" for zero). Comparisons,
// equality, integrality and multipleOf work on this form directly, so a
// number of any size or precision is handled exactly and an exponent of
// any size costs nothing (1e400000 is five digits of text, not a
// 400,000-digit integer).
type decimal struct {
	neg    bool
	digits string
	mag    int64 // position of the decimal point relative to digits
	src    string
}

// maxExponent saturates exponents: beyond it, numbers only compare by
// magnitude, which the saturation preserves.
const maxExponent = 1 << 40

// parseDecimal parses JSON number text. ok is false for text that is not a
// JSON number.
func parseDecimal(s string) (d decimal, ok bool) {
	d.src = s
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return d, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[start:i]
		if frac == "" {
			return d, false
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp < maxExponent {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if start == i {
			return d, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return d, false
	}
	// digits = intPart+frac without leading/trailing zeros.
	all := intPart + frac
	mag := int64(len(intPart)) + exp
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	mag -= int64(lead)
	all = strings.TrimRight(all, "0")
	if all == "" {
		d.neg = false
		mag = 0
	}
	d.digits, d.mag = all, mag
	return d, true
}

// numberOf returns the decimal of a decoded JSON number, or ok false if x
// is not a number.
func numberOf(x any) (decimal, bool) {
	switch x := x.(type) {
	case json.Number:
		return parseDecimal(string(x))
	case float64:
		return floatDecimal(x)
	case float32:
		return floatDecimal(float64(x))
	case int:
		return parseDecimal(strconv.FormatInt(int64(x), 10))
	case int8:
		return parseDecimal(strconv.FormatInt(int64(x), 10))
	case int16:
		return parseDecimal(strconv.FormatInt(int64(x), 10))
	case int32:
		return parseDecimal(strconv.FormatInt(int64(x), 10))
	case int64:
		return parseDecimal(strconv.FormatInt(x, 10))
	case uint:
		return parseDecimal(strconv.FormatUint(uint64(x), 10))
	case uint8:
		return parseDecimal(strconv.FormatUint(uint64(x), 10))
	case uint16:
		return parseDecimal(strconv.FormatUint(uint64(x), 10))
	case uint32:
		return parseDecimal(strconv.FormatUint(uint64(x), 10))
	case uint64:
		return parseDecimal(strconv.FormatUint(x, 10))
	}
	return decimal{}, false
}

func floatDecimal(f float64) (decimal, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal{}, false
	}
	return parseDecimal(strconv.FormatFloat(f, 'g', -1, 64))
}

func (d decimal) isZero() bool { return d.digits == "" }

// isInt reports whether d is an integer (1.0 and 1e2 are).
func (d decimal) isInt() bool { return d.digits == "" || d.mag >= int64(len(d.digits)) }

// cmpDecimal compares a and b exactly.
func cmpDecimal(a, b decimal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpAbs(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpAbs(a, b decimal) int {
	switch {
	case a.digits == "" && b.digits == "":
		return 0
	case a.digits == "":
		return -1
	case b.digits == "":
		return 1
	case a.mag != b.mag:
		if a.mag < b.mag {
			return -1
		}
		return 1
	}
	return strings.Compare(a.digits, b.digits)
}

// intValue returns d as an int if it is a non-negative integer, saturating
// at math.MaxInt.
func (d decimal) intValue() (int, bool) {
	if d.neg || !d.isInt() {
		return 0, false
	}
	if d.digits == "" {
		return 0, true
	}
	if d.mag > 18 {
		return math.MaxInt, true
	}
	n, err := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.mag)-len(d.digits)), 10, 64)
	if err != nil {
		return math.MaxInt, true
	}
	return int(n), true
}

// isMultipleOf reports whether d is an integer multiple of m (m > 0).
// With d = dx·10^ex and m = dm·10^em, where dx and dm have no trailing
// zeros, d/m is an integer iff dm divides dx·10^(ex-em) when ex >= em, and
// never (for d != 0) when ex < em, as dx is then not divisible by 10.
func (d decimal) isMultipleOf(m decimal) bool {
	if d.digits == "" {
		return true
	}
	if m.digits == "" {
		return false
	}
	ex := d.mag - int64(len(d.digits))
	em := m.mag - int64(len(m.digits))
	e := ex - em
	if e < 0 {
		return false
	}
	dx, ok1 := new(big.Int).SetString(d.digits, 10)
	dm, ok2 := new(big.Int).SetString(m.digits, 10)
	if !ok1 || !ok2 {
		return false
	}
	if dm.IsInt64() && dm.Int64() == 1 {
		return true
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(e), dm)
	dx.Mod(dx, dm)
	dx.Mul(dx, p)
	dx.Mod(dx, dm)
	return dx.Sign() == 0
}

// String returns the number as written, or a normalized form.
func (d decimal) String() string {
	if d.src != "" {
		return d.src
	}
	if d.digits == "" {
		return "0"
	}
	s := "0." + d.digits + "e" + strconv.FormatInt(d.mag, 10)
	if d.neg {
		s = "-" + s
	}
	return s
}
