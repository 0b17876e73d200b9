package surface_test

import (
	"fmt"
	"log"

	"github.com/gomcp/sdk/surface"
)

// Diff classifies each change: here a new required argument breaks the
// callers of search, and a new tool breaks nobody.
func ExampleDiff() {
	old, err := surface.Parse([]byte(`{"format": "gomcp-surface/1", "tools": {
		"search": {"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}}}`))
	if err != nil {
		log.Fatal(err)
	}
	new, err := surface.Parse([]byte(`{"format": "gomcp-surface/1", "tools": {
		"search": {"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "lang": {"type": "string"}}, "required": ["lang"]}},
		"fetch": {"inputSchema": {"type": "object"}}}}`))
	if err != nil {
		log.Fatal(err)
	}
	changes := surface.Diff(old, new)
	for _, c := range changes {
		fmt.Println(c)
	}
	fmt.Println("breaking:", surface.HasBreaking(changes))
	// Output:
	// compatible: /tools/fetch: tool "fetch" added
	// breaking: /tools/search/inputSchema/properties/lang: tool "search": argument "lang": added, and required
	// breaking: true
}
