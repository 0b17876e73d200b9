package jsonschema

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is a struct field as encoding/json sees it.
type field struct {
	name   string // JSON name
	goName string
	tagged bool  // name came from a json tag
	index  []int // path through embedded structs
	typ    reflect.Type
	tag    reflect.StructTag
	omit   bool // omitempty or omitzero
	quoted bool // `json:",string"` on a scalar
}

// typeFields returns the fields encoding/json encodes for struct type t, in
// encoding order, following its rules: embedded structs without a json name
// are flattened, and among fields with the same name the shallowest wins,
// then a tagged one; remaining ties drop the name altogether.
func typeFields(t reflect.Type) []field {
	current := []field{}
	next := []field{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []field

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}

		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)

				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					nf := field{
						name:   name,
						goName: sf.Name,
						tagged: name != "",
						index:  index,
						typ:    sf.Type,
						tag:    sf.Tag,
						omit:   hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
						quoted: hasOpt(opts, "string") && isQuotable(ft.Kind()),
					}
					if nf.name == "" {
						nf.name = sf.Name
					}
					fields = append(fields, nf)
					if count[f.typ] > 1 {
						// Two copies at the same depth annihilate each other;
						// a second entry makes the name ambiguous below.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, field{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		fi := fields[i]
		for advance = 1; i+advance < len(fields); advance++ {
			if fields[i+advance].name != fi.name {
				break
			}
		}
		if advance == 1 {
			out = append(out, fi)
			continue
		}
		dominant := fields[i : i+advance]
		if len(dominant[0].index) == len(dominant[1].index) && dominant[0].tagged == dominant[1].tagged {
			continue
		}
		out = append(out, fi)
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

func isQuotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// validTagName mirrors encoding/json's check of json tag names.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
