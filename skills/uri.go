package skills

import (
	"regexp"
	"strings"
)

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func validDigest(d string) bool { return digestRE.MatchString(d) }

// skillDir returns the directory URI of a SKILL.md URI: the URI without
// "/SKILL.md". It fails unless uri has a scheme and at least one segment
// before SKILL.md.
func skillDir(uri string) (string, bool) {
	dir, ok := strings.CutSuffix(uri, "/"+SkillFile)
	if !ok {
		return "", false
	}
	i := strings.Index(dir, "://")
	if i <= 0 || len(dir) == i+3 || !cleanPath(dir[i+3:]) {
		return "", false
	}
	return dir, true
}

// lastSegment is the part of a URI after its last "/".
func lastSegment(uri string) string { return uri[strings.LastIndexByte(uri, '/')+1:] }

// within reports whether uri is a file below the directory URI dir, by a
// path of plain segments (no ".", "..", empty or percent-encoded dot
// segments), so that no resolution could lead it out of dir.
func within(dir, uri string) bool {
	rest, ok := strings.CutPrefix(uri, dir+"/")
	return ok && cleanPath(rest)
}

// cleanPath reports whether p is one or more "/"-separated segments, none
// empty, "." or "..", in plain or percent-encoded form, and none holding a
// backslash or an encoded separator.
func cleanPath(p string) bool {
	if p == "" {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		l := strings.ToLower(seg)
		d := strings.ReplaceAll(l, "%2e", ".")
		if seg == "" || d == "." || d == ".." || strings.ContainsAny(seg, `\?#`) ||
			strings.Contains(l, "%2f") || strings.Contains(l, "%5c") || strings.Contains(l, "%00") {
			return false
		}
	}
	return true
}

// validName reports whether name follows the Agent Skills naming rules:
// 1 to 64 characters of lowercase letters, digits and hyphens, with no
// leading, trailing or doubled hyphen.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// escapeSegment percent-encodes every byte of a path segment but the
// unreserved characters of RFC 3986, so that a file name becomes one plain
// URI segment (and the first, a valid reg-name).
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// pathURI is the skill:// URI of a slash-separated path of the tree.
func pathURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	return Scheme + "://" + strings.Join(segs, "/")
}
