package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tNone is a type bit no instance has: "type": [] accepts nothing.
const tNone uint8 = 1 << 7

// maxRefDepth bounds the references followed at one instance location, so
// that a reference cycle which consumes no instance ends with an error.
const maxRefDepth = 200

// maxRecorded bounds the problems recorded during one validation.
const maxRecorded = 1000

// path is an instance location, built as a linked list while walking and
// turned into a JSON pointer only when a problem is recorded.
type path struct {
	parent *path
	key    string
	index  int // -1 for keys
}

func (p *path) String() string {
	if p == nil {
		return ""
	}
	var toks []*path
	for q := p; q != nil; q = q.parent {
		toks = append(toks, q)
	}
	var sb strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		sb.WriteByte('/')
		if toks[i].index >= 0 {
			sb.WriteString(strconv.Itoa(toks[i].index))
		} else {
			sb.WriteString(escapePtr(toks[i].key))
		}
	}
	return sb.String()
}

type problem struct {
	loc *path
	msg string
}

// annotations are the evaluated properties and items of one instance,
// collected for unevaluatedProperties and unevaluatedItems.
type annotations struct {
	allProps bool
	props    map[string]bool
	items    int // the first items items are evaluated
	allItems bool
	contains map[int]bool
}

func (a *annotations) addProp(k string) {
	if a.props == nil {
		a.props = map[string]bool{}
	}
	a.props[k] = true
}

func (a *annotations) merge(b *annotations) {
	if b.allProps {
		a.allProps = true
	}
	for k := range b.props {
		a.addProp(k)
	}
	a.items = max(a.items, b.items)
	if b.allItems {
		a.allItems = true
	}
	for i := range b.contains {
		if a.contains == nil {
			a.contains = map[int]bool{}
		}
		a.contains[i] = true
	}
}

// state is one validation.
type state struct {
	problems []problem
	dropped  int
	quiet    int // > 0: problems are not wanted, stop at the first failure
	scope    []*resource
	refDepth int
	needEval bool
	budget   int // schema evaluations left
	stopped  bool
}

// Evaluation budget: a schema can make the work per instance value grow
// exponentially (allOf: [a, a] nested n times, or a $ref cycle that fans
// out), so one validation evaluates at most baseBudget + perValueBudget
// schemas per instance value; beyond, it fails with a clear problem.
const (
	baseBudget     = 1 << 20
	perValueBudget = 256
)

func (s *state) fail(loc *path, format string, args ...any) {
	if s.quiet > 0 {
		return
	}
	if len(s.problems) >= maxRecorded {
		s.dropped++
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	s.problems = append(s.problems, problem{loc: loc, msg: shorten(msg)})
}

// instType returns the type bits of x: numbers that are integers have both
// tNumber and tInteger. 0 is a value no JSON decoding produces.
func instType(x any) uint8 {
	switch x := x.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	case json.Number:
		if plainInteger(string(x)) {
			return tNumber | tInteger // no need to parse
		}
	}
	d, ok := numberOf(x)
	if !ok {
		return 0
	}
	if d.isInt() {
		return tNumber | tInteger
	}
	return tNumber
}

// plainInteger reports whether s is a JSON integer without fraction or
// exponent.
func plainInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func typeNames(t uint8) string {
	var names []string
	for _, e := range []struct {
		b    uint8
		name string
	}{{tNull, "null"}, {tBoolean, "boolean"}, {tObject, "object"}, {tArray, "array"}, {tNumber, "number"}, {tInteger, "integer"}, {tString, "string"}} {
		if t&e.b != 0 {
			names = append(names, e.name)
		}
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

func instTypeName(t uint8) string {
	switch {
	case t&tNumber != 0:
		return "number"
	case t == 0:
		return "unknown"
	}
	return typeNames(t)
}

// eval validates x at loc against n. ann, if not nil, receives the
// properties and items n evaluated (when it succeeds).
func (s *state) eval(n *node, x any, loc *path, ann *annotations) bool {
	s.budget--
	if s.budget < 0 {
		s.stopped = true
		return false
	}
	if n.boolean {
		if !n.always {
			s.fail(loc, "not allowed")
		}
		return n.always
	}
	if top := len(s.scope) - 1; top < 0 || s.scope[top] != n.res {
		s.scope = append(s.scope, n.res)
		defer func() { s.scope = s.scope[:len(s.scope)-1] }()
	}
	var local *annotations
	if s.needEval {
		local = &annotations{}
	}
	ok := true
	t := instType(x)
	if t == 0 {
		s.fail(loc, "unsupported value of type %T", x)
		return false
	}
	if n.types != 0 && n.types&t == 0 {
		s.fail(loc, "got %s, want %s", instTypeName(t), typeNames(n.types))
		if s.quiet > 0 {
			return false
		}
		ok = false
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if jsonEqual(x, e) {
				found = true
				break
			}
		}
		if !found {
			if len(n.enum) == 1 {
				s.fail(loc, "value must be %s", quote(n.enum[0]))
			} else {
				vals := make([]string, len(n.enum))
				for i, e := range n.enum {
					vals[i] = quote(e)
				}
				s.fail(loc, "value must be one of %s", strings.Join(vals, ", "))
			}
			ok = false
		}
	}
	if n.hasConst && !jsonEqual(x, n.constVal) {
		s.fail(loc, "value must be %s", quote(n.constVal))
		ok = false
	}
	if !ok && s.quiet > 0 {
		return false
	}
	switch {
	case t&tNumber != 0:
		if n.hasNumKw {
			num, _ := numberOf(x)
			ok = s.evalNumber(n, num, loc) && ok
		}
	case t == tString:
		ok = s.evalString(n, x.(string), loc) && ok
	case t == tArray:
		ok = s.evalArray(n, x.([]any), loc, local) && ok
	case t == tObject:
		ok = s.evalObject(n, x.(map[string]any), loc, local) && ok
	}
	if !ok && s.quiet > 0 {
		return false
	}

	// References.
	for _, r := range [...]*node{n.ref, s.dynamicTarget(n), s.recursiveTarget(n)} {
		if r == nil {
			continue
		}
		if s.refDepth >= maxRefDepth {
			s.fail(loc, "schema references nest too deeply (a $ref cycle?)")
			return false
		}
		s.refDepth++
		ok = s.eval(r, x, loc, local) && ok
		s.refDepth--
	}

	// In-place applicators.
	for _, a := range n.allOf {
		ok = s.eval(a, x, loc, local) && ok
	}
	if !ok && s.quiet > 0 {
		return false
	}
	if n.anyOf != nil {
		mark := len(s.problems)
		matched := false
		var buf [8]int
		ends := buf[:0]
		for _, a := range n.anyOf {
			var sub *annotations
			if local != nil {
				sub = &annotations{}
			}
			if s.eval(a, x, loc, sub) {
				matched = true
				if local != nil {
					local.merge(sub)
				} else {
					break
				}
			}
			ends = append(ends, len(s.problems))
		}
		if matched {
			s.problems = s.problems[:mark]
		} else {
			s.keepTypeCompatible(n.anyOf, t, mark, ends)
			ok = false
		}
	}
	if n.oneOf != nil {
		mark := len(s.problems)
		var first, second = -1, -1
		var buf [8]int
		ends := buf[:0]
		for i, a := range n.oneOf {
			var sub *annotations
			if local != nil {
				sub = &annotations{}
			}
			matched := s.eval(a, x, loc, sub)
			ends = append(ends, len(s.problems))
			if matched {
				if first < 0 {
					first = i
					if local != nil {
						local.merge(sub)
					}
				} else {
					second = i
					break
				}
			}
		}
		switch {
		case first < 0:
			s.keepTypeCompatible(n.oneOf, t, mark, ends)
			ok = false
		case second >= 0:
			s.problems = s.problems[:mark]
			s.fail(loc, "valid against more than one of the oneOf schemas (%d and %d)", first, second)
			ok = false
		default:
			s.problems = s.problems[:mark]
		}
	}
	if n.not != nil {
		s.quiet++
		matched := s.eval(n.not, x, loc, nil)
		s.quiet--
		if matched {
			s.fail(loc, "must not be valid against the 'not' schema")
			ok = false
		}
	}
	if n.ifN != nil && (n.thenN != nil || n.elseN != nil || local != nil) {
		var sub *annotations
		if local != nil {
			sub = &annotations{}
		}
		s.quiet++
		cond := s.eval(n.ifN, x, loc, sub)
		s.quiet--
		if cond {
			if local != nil {
				local.merge(sub)
			}
			if n.thenN != nil {
				ok = s.eval(n.thenN, x, loc, local) && ok
			}
		} else if n.elseN != nil {
			ok = s.eval(n.elseN, x, loc, local) && ok
		}
	}
	if obj, isObj := x.(map[string]any); isObj && n.depSchemas != nil {
		for _, d := range n.depSchemas {
			if _, present := obj[d.prop]; present {
				ok = s.eval(d.schema, x, loc, local) && ok
			}
		}
	}
	if !ok && s.quiet > 0 {
		return false
	}

	// Unevaluated keywords see every annotation above.
	if n.unevalItems != nil {
		if arr, isArr := x.([]any); isArr && !local.allItems {
			var extra []int
			for i := local.items; i < len(arr); i++ {
				if !local.contains[i] {
					extra = append(extra, i)
				}
			}
			if len(extra) > 0 && n.unevalItems.boolean && !n.unevalItems.always {
				s.fail(loc, "unevaluated items %s not allowed", joinInts(extra))
				ok = false
			} else {
				for _, i := range extra {
					ok = s.evalChild(n.unevalItems, arr[i], &path{parent: loc, index: i}) && ok
				}
			}
			local.allItems = true
		}
	}
	if n.unevalProps != nil {
		if obj, isObj := x.(map[string]any); isObj && !local.allProps {
			for _, k := range sortedKeys(obj) {
				if !local.props[k] {
					ok = s.evalChild(n.unevalProps, obj[k], &path{parent: loc, key: k, index: -1}) && ok
				}
			}
			local.allProps = true
		}
	}
	if ok && ann != nil && local != nil {
		ann.merge(local)
	}
	return ok
}

// keepTypeCompatible trims the problems of failed anyOf or oneOf branches
// (branch i recorded s.problems[ends[i-1]:ends[i]], from mark): when some
// branches accept the instance's type, the problems of those that do not
// ("got object, want null" beside a nullable object's real problems) are
// dropped. Otherwise every branch's problems stay.
func (s *state) keepTypeCompatible(branches []*node, t uint8, mark int, ends []int) {
	if s.quiet > 0 || len(ends) != len(branches) {
		return
	}
	compatible := 0
	for _, b := range branches {
		if typeCompatible(b, t) {
			compatible++
		}
	}
	if compatible == 0 || compatible == len(branches) {
		return
	}
	kept := s.problems[:mark]
	start := mark
	for i, b := range branches {
		end := ends[i]
		if typeCompatible(b, t) {
			kept = append(kept, s.problems[start:end]...)
		}
		start = end
	}
	s.problems = kept
}

// typeCompatible reports whether schema n, judged by its "type" (through
// plain references), admits instances of type t.
func typeCompatible(n *node, t uint8) bool {
	for range 8 {
		switch {
		case n.boolean:
			return n.always
		case n.types != 0:
			return n.types&t != 0
		case n.ref != nil:
			n = n.ref
		default:
			return true
		}
	}
	return true
}

// evalChild evaluates a value inside x: reference depth restarts there.
func (s *state) evalChild(n *node, x any, loc *path) bool {
	saved := s.refDepth
	s.refDepth = 0
	ok := s.eval(n, x, loc, nil)
	s.refDepth = saved
	return ok
}

func (s *state) dynamicTarget(n *node) *node {
	if n.dynRef == nil {
		return nil
	}
	if n.dynName != "" {
		for _, r := range s.scope {
			if t := r.dynAnchors[n.dynName]; t != nil {
				return t
			}
		}
	}
	return n.dynRef
}

func (s *state) recursiveTarget(n *node) *node {
	t := n.recursiveRef
	if t == nil || t.res.root != t || !t.res.recursiveAnchor {
		return t
	}
	for _, r := range s.scope {
		if r.recursiveAnchor {
			return r.root
		}
	}
	return t
}

func (s *state) evalNumber(n *node, d decimal, loc *path) bool {
	ok := true
	if n.minimum != nil && cmpDecimal(d, *n.minimum) < 0 {
		s.fail(loc, "must be >= %s, got %s", n.minimum, d)
		ok = false
	}
	if n.maximum != nil && cmpDecimal(d, *n.maximum) > 0 {
		s.fail(loc, "must be <= %s, got %s", n.maximum, d)
		ok = false
	}
	if n.exclMin != nil && cmpDecimal(d, *n.exclMin) <= 0 {
		s.fail(loc, "must be > %s, got %s", n.exclMin, d)
		ok = false
	}
	if n.exclMax != nil && cmpDecimal(d, *n.exclMax) >= 0 {
		s.fail(loc, "must be < %s, got %s", n.exclMax, d)
		ok = false
	}
	if n.multipleOf != nil && !d.isMultipleOf(*n.multipleOf) {
		s.fail(loc, "must be a multiple of %s, got %s", n.multipleOf, d)
		ok = false
	}
	return ok
}

func (s *state) evalString(n *node, str string, loc *path) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(str)
		if n.minLength >= 0 && l < n.minLength {
			s.fail(loc, "length must be >= %d, got %d", n.minLength, l)
			ok = false
		}
		if n.maxLength >= 0 && l > n.maxLength {
			s.fail(loc, "length must be <= %d, got %d", n.maxLength, l)
			ok = false
		}
	}
	if n.pattern != nil {
		s.budget -= len(str) >> 10 // matching is linear in the string
	}
	if n.pattern != nil && !n.pattern.MatchString(str) {
		s.fail(loc, "%s does not match pattern %s", quote(str), quote(n.pattern.String()))
		ok = false
	}
	return ok
}

func (s *state) evalArray(n *node, arr []any, loc *path, ann *annotations) bool {
	ok := true
	if n.minItems >= 0 && len(arr) < n.minItems {
		s.fail(loc, "must have >= %d items, got %d", n.minItems, len(arr))
		ok = false
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		s.fail(loc, "must have <= %d items, got %d", n.maxItems, len(arr))
		ok = false
	}
	if n.uniqueItems && len(arr) > 1 {
		s.budget -= len(arr)
		seen := make(map[string]int, len(arr))
		var buf []byte
		for i, e := range arr {
			buf = canonical(buf[:0], e)
			if j, dup := seen[string(buf)]; dup {
				s.fail(loc, "items at %d and %d are equal", j, i)
				ok = false
				break
			}
			seen[string(buf)] = i
		}
	}
	if !ok && s.quiet > 0 {
		return false
	}
	for i, p := range n.prefixItems {
		if i >= len(arr) {
			break
		}
		ok = s.evalChild(p, arr[i], &path{parent: loc, index: i}) && ok
	}
	if ann != nil {
		ann.items = min(len(n.prefixItems), len(arr))
	}
	if n.items != nil && len(arr) > len(n.prefixItems) {
		if n.items.boolean && !n.items.always {
			s.fail(loc, "last %d additional items not allowed", len(arr)-len(n.prefixItems))
			ok = false
		} else {
			for i := len(n.prefixItems); i < len(arr); i++ {
				ok = s.evalChild(n.items, arr[i], &path{parent: loc, index: i}) && ok
				if !ok && s.quiet > 0 {
					return false
				}
			}
		}
		if ann != nil {
			ann.allItems = true
		}
	}
	if n.contains != nil {
		matches := 0
		s.quiet++
		for i, e := range arr {
			if s.evalChild(n.contains, e, &path{parent: loc, index: i}) {
				matches++
				if ann != nil {
					if ann.contains == nil {
						ann.contains = map[int]bool{}
					}
					ann.contains[i] = true
				}
			}
		}
		s.quiet--
		switch {
		case n.minContains >= 0 && matches < n.minContains:
			s.fail(loc, "must contain at least %d matching items, got %d", n.minContains, matches)
			ok = false
		case n.minContains < 0 && matches == 0:
			s.fail(loc, "no item matches the contains schema")
			ok = false
		}
		if n.maxContains >= 0 && matches > n.maxContains {
			s.fail(loc, "must contain at most %d matching items, got %d", n.maxContains, matches)
			ok = false
		}
	}
	return ok
}

func (s *state) evalObject(n *node, obj map[string]any, loc *path, ann *annotations) bool {
	ok := true
	if n.minProps >= 0 && len(obj) < n.minProps {
		s.fail(loc, "must have >= %d properties, got %d", n.minProps, len(obj))
		ok = false
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		s.fail(loc, "must have <= %d properties, got %d", n.maxProps, len(obj))
		ok = false
	}
	if n.required != nil {
		var missing []string
		for _, r := range n.required {
			if _, present := obj[r]; !present && !slices.Contains(missing, r) {
				missing = append(missing, r)
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			s.fail(loc, "missing property %s", quote(missing[0]))
			ok = false
		default:
			s.fail(loc, "missing properties %s", quoteAll(missing))
			ok = false
		}
	}
	for _, d := range n.depRequired {
		if _, present := obj[d.prop]; !present {
			continue
		}
		var missing []string
		for _, r := range d.required {
			if _, present := obj[r]; !present {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			s.fail(loc, "properties %s required, if %s exists", quoteAll(missing), quote(d.prop))
			ok = false
		}
	}
	if !ok && s.quiet > 0 {
		return false
	}
	if n.propertyNames != nil {
		for _, k := range sortedKeys(obj) {
			s.quiet++
			valid := s.evalChild(n.propertyNames, k, loc)
			s.quiet--
			if !valid {
				s.fail(loc, "invalid property name %s", quote(k))
				ok = false
			}
		}
	}
	if n.properties == nil && n.patternProps == nil && n.additionalProps == nil {
		return ok
	}
	var extra []string
	for k, v := range obj {
		matched := false
		if p, found := n.properties[k]; found {
			matched = true
			ok = s.evalChild(p, v, &path{parent: loc, key: k, index: -1}) && ok
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				matched = true
				ok = s.evalChild(pp.schema, v, &path{parent: loc, key: k, index: -1}) && ok
			}
		}
		if matched {
			if ann != nil {
				ann.addProp(k)
			}
		} else if n.additionalProps != nil {
			if n.additionalProps.boolean && !n.additionalProps.always {
				extra = append(extra, k)
				ok = false
			} else {
				ok = s.evalChild(n.additionalProps, v, &path{parent: loc, key: k, index: -1}) && ok
			}
		}
		if !ok && s.quiet > 0 {
			return false
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		if len(extra) == 1 {
			s.fail(loc, "additional property %s not allowed", quote(extra[0]))
		} else {
			s.fail(loc, "additional properties %s not allowed", quoteAll(extra))
		}
	}
	if n.additionalProps != nil && ann != nil {
		ann.allProps = true
	}
	return ok
}

// validateDoc validates a decoded instance against the compiled root.
// size estimates the number of values in the instance.
func (v *Validator) validateDoc(x any, size int) *ValidationError {
	s := state{needEval: v.needEval, budget: baseBudget + perValueBudget*size}
	if s.eval(v.root, x, nil, nil) && !s.stopped {
		return nil
	}
	e := &ValidationError{}
	if s.stopped { // whatever the verdict: a "not" may have turned the stop into a pass
		e.Problems = []Problem{{Message: "validation stopped: the schema needs too much work for this instance"}}
		return e
	}
	var locs []string
	msgs := map[string][]string{}
	for _, p := range s.problems {
		loc := p.loc.String()
		m, seen := msgs[loc]
		if !seen {
			locs = append(locs, loc)
		}
		if !slices.Contains(m, p.msg) {
			msgs[loc] = append(m, p.msg)
		}
	}
	if len(locs) == 0 {
		e.Problems = []Problem{{Message: "does not match the schema"}}
		return e
	}
	slices.SortFunc(locs, comparePointers)
	for _, loc := range locs {
		m := msgs[loc]
		slices.Sort(m)
		e.Problems = append(e.Problems, Problem{Location: loc, Message: strings.Join(m, "; ")})
	}
	if s.dropped > 0 {
		e.Problems = append(e.Problems, Problem{Message: fmt.Sprintf("(%d further problems not recorded)", s.dropped)})
	}
	return e
}
