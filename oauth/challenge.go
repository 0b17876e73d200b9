package oauth

import (
	"errors"
	"fmt"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): a scheme such as Bearer or DPoP and its parameters. Parameter
// names are lower case; values are unquoted.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// maxChallengeBytes bounds the WWW-Authenticate text parsed.
const maxChallengeBytes = 16 << 10

// ParseWWWAuthenticate parses the values of WWW-Authenticate headers into
// their challenges, in order. Parameters may come in any order, their
// values quoted or not; a token68 is skipped. Malformed input is an error,
// never a panic.
func ParseWWWAuthenticate(values []string) ([]Challenge, error) {
	var out []Challenge
	total := 0
	for _, v := range values {
		total += len(v)
		if total > maxChallengeBytes {
			return nil, errors.New("oauth: WWW-Authenticate header too long")
		}
		cs, err := parseChallenges(v)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}

type challengeLexer struct {
	s string
	i int
}

func (l *challengeLexer) skipSpace() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

func (l *challengeLexer) token() string {
	start := l.i
	for l.i < len(l.s) && isTokenChar(l.s[l.i]) {
		l.i++
	}
	return l.s[start:l.i]
}

func (l *challengeLexer) quoted() (string, error) {
	// l.s[l.i] == '"'
	l.i++
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch c {
		case '"':
			l.i++
			return b.String(), nil
		case '\\':
			l.i++
			if l.i >= len(l.s) {
				return "", errors.New("oauth: WWW-Authenticate: unterminated quoted string")
			}
			c = l.s[l.i]
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return "", errors.New("oauth: WWW-Authenticate: control character in quoted string")
		}
		b.WriteByte(c)
		l.i++
	}
	return "", errors.New("oauth: WWW-Authenticate: unterminated quoted string")
}

// paramAhead reports whether a "name =" pair starts at the cursor.
func (l *challengeLexer) paramAhead() bool {
	save := l.i
	defer func() { l.i = save }()
	if l.token() == "" {
		return false
	}
	l.skipSpace()
	if l.i >= len(l.s) || l.s[l.i] != '=' {
		return false
	}
	// "name==" or "name=" at the end or before a comma is a token68.
	rest := strings.TrimLeft(l.s[l.i:], "=")
	rest = strings.TrimLeft(rest, " \t")
	return len(l.s[l.i:])-len(strings.TrimLeft(l.s[l.i:], "=")) == 1 && rest != "" && rest[0] != ','
}

func parseChallenges(s string) ([]Challenge, error) {
	l := &challengeLexer{s: s}
	var out []Challenge
	for {
		// Skip empty list elements.
		for {
			l.skipSpace()
			if l.i < len(l.s) && l.s[l.i] == ',' {
				l.i++
				continue
			}
			break
		}
		if l.i >= len(l.s) {
			return out, nil
		}
		scheme := l.token()
		if scheme == "" {
			return nil, fmt.Errorf("oauth: WWW-Authenticate: expected an auth scheme at offset %d", l.i)
		}
		ch := Challenge{Scheme: scheme, Params: map[string]string{}}
		l.skipSpace()
		// A token68 instead of parameters.
		if l.i < len(l.s) && l.s[l.i] != ',' && !l.paramAhead() {
			start := l.i
			for l.i < len(l.s) && (isTokenChar(l.s[l.i]) || l.s[l.i] == '=') {
				l.i++
			}
			if l.i == start {
				return nil, fmt.Errorf("oauth: WWW-Authenticate: unexpected %q at offset %d", l.s[l.i], l.i)
			}
			l.skipSpace()
			if l.i < len(l.s) && l.s[l.i] != ',' {
				return nil, fmt.Errorf("oauth: WWW-Authenticate: unexpected %q at offset %d", l.s[l.i], l.i)
			}
			out = append(out, ch)
			continue
		}
		for {
			l.skipSpace()
			if !l.paramAhead() {
				break
			}
			name := strings.ToLower(l.token())
			l.skipSpace()
			l.i++ // '='
			l.skipSpace()
			var val string
			if l.i < len(l.s) && l.s[l.i] == '"' {
				v, err := l.quoted()
				if err != nil {
					return nil, err
				}
				val = v
			} else {
				val = l.token()
				if val == "" {
					return nil, fmt.Errorf("oauth: WWW-Authenticate: parameter %q has no value", name)
				}
			}
			if _, dup := ch.Params[name]; dup {
				return nil, fmt.Errorf("oauth: WWW-Authenticate: parameter %q repeated", name)
			}
			ch.Params[name] = val
			l.skipSpace()
			if l.i >= len(l.s) {
				break
			}
			if l.s[l.i] != ',' {
				return nil, fmt.Errorf("oauth: WWW-Authenticate: unexpected %q at offset %d", l.s[l.i], l.i)
			}
			l.i++
			// The next element is either another parameter or a new challenge.
			for {
				l.skipSpace()
				if l.i < len(l.s) && l.s[l.i] == ',' {
					l.i++
					continue
				}
				break
			}
		}
		out = append(out, ch)
	}
}
