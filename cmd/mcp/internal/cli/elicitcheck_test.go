package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

func ptr[T any](v T) *T { return &v }

// heroForm asks for one field of each kind that has constraints.
func heroForm() *mcp.ElicitRequest {
	return &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "Who?", RequestedSchema: &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "age", Schema: &mcp.PrimitiveSchema{Type: "integer", Minimum: ptr(0.0), Maximum: ptr(100.0)}},
			{Name: "email", Schema: &mcp.PrimitiveSchema{Type: "string", Format: "email"}},
			{Name: "born", Schema: &mcp.PrimitiveSchema{Type: "string", Format: "date"}},
			{Name: "hero", Schema: &mcp.PrimitiveSchema{Type: "string", OneOf: []mcp.EnumOption{{Const: "hero-1", Title: "Superman"}, {Const: "hero-2", Title: "Batman"}}}},
			{Name: "team", Schema: &mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "t-1", Title: "Justice League"}, {Const: "t-2", Title: "Avengers"}}}}},
			{Name: "color", Schema: &mcp.PrimitiveSchema{Type: "string", Enum: []string{"r", "g"}, EnumNames: []string{"Red", "Green"}}},
		},
		Required: []string{"age", "email", "born", "hero"},
	}}}
}

// TestElicitationChecked: an answer that does not fit the field's schema
// (a bound, a format) is refused and asked again, and enum choices are
// shown by title and taken by title or value.
func TestElicitationChecked(t *testing.T) {
	input := strings.Join([]string{
		"500", "42",
		"not-an-email", "ada@example.com",
		"2024-13-45", "2024-12-01",
		"Wonder Woman", "superman",
		"Avengers, t-1",
		"Green",
		"y",
	}, "\n") + "\n"
	var out bytes.Buffer
	a := &asker{in: strings.NewReader(input), out: &out}
	defer a.close()
	res := a.elicit(context.Background(), heroForm())
	want := map[string]any{"age": int64(42), "email": "ada@example.com", "born": "2024-12-01", "hero": "hero-1",
		"team": []string{"t-2", "t-1"}, "color": "g"}
	if res.Action != mcp.ElicitActionAccept || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("answer %s %#v\n%s", res.Action, res.Content, out.String())
	}
	for _, s := range []string{
		"must be <= 100, got 500", "want an email address", "want a date",
		"one of Superman, Batman", `"Wonder Woman" is not one of Superman, Batman`,
		"comma-separated, from Justice League, Avengers", "one of Red, Green",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the questions lack %q:\n%s", s, out.String())
		}
	}
}

func TestCheckFormat(t *testing.T) {
	for _, c := range []struct {
		format mcp.StringFormat
		s      string
		ok     bool
	}{
		{"email", "a@example.com", true}, {"email", "not-an-email", false}, {"email", "Ada <a@example.com>", false},
		{"uri", "https://example.com/x", true}, {"uri", "example.com", false},
		{"date", "2024-12-01", true}, {"date", "2024-13-45", false},
		{"date-time", "2024-12-01T10:00:00Z", true}, {"date-time", "2024-12-01", false},
		{"", "anything", true},
	} {
		if err := checkFormat(c.format, c.s); (err == nil) != c.ok {
			t.Errorf("%s %q: %v", c.format, c.s, err)
		}
	}
}

// TestInspectorElicitationChecked: the page's answer is checked against
// the requested schema too; one that does not fit is asked again, saying
// why.
func TestInspectorElicitationChecked(t *testing.T) {
	ctx := context.Background()
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}}
	_, feed := in.hub.subscribe()
	defer in.hub.unsubscribe(feed)
	done := make(chan *mcp.ElicitResult, 1)
	go func() {
		res, err := in.elicit(ctx, heroForm())
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	question := func() (id int, problem string) {
		t.Helper()
		for {
			select {
			case e := <-feed:
				if e.Kind != "elicit" {
					continue
				}
				var q struct {
					ID    int    `json:"id"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal(e.Data, &q); err != nil {
					t.Fatal(err)
				}
				return q.ID, q.Error
			case <-time.After(10 * time.Second):
				t.Fatal("no question")
			}
		}
	}
	answer := func(id int, content string) {
		t.Helper()
		body := fmt.Sprintf(`{"id":%d,"result":{"action":"accept","content":%s}}`, id, content)
		if _, err := in.do(ctx, "answer", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	id, problem := question()
	if problem != "" {
		t.Errorf("first question with an error: %q", problem)
	}
	answer(id, `{"age":500,"email":"ada@example.com","born":"2024-12-01","hero":"hero-1"}`)
	id, problem = question()
	if !strings.Contains(problem, "age") || !strings.Contains(problem, "<= 100") {
		t.Errorf("asked again with %q", problem)
	}
	answer(id, `{"age":42,"email":"not-an-email","born":"2024-12-01","hero":"hero-1"}`)
	if id, problem = question(); !strings.Contains(problem, "email") {
		t.Errorf("asked again with %q", problem)
	}
	answer(id, `{"age":42,"email":"ada@example.com","born":"2024-12-01","hero":"hero-1","team":["t-2"]}`)
	res := <-done
	if res.Action != mcp.ElicitActionAccept || res.Content["age"] != 42.0 {
		t.Errorf("answer %+v", res)
	}
}

// TestElicitationEnumDefault: an enum's default is shown by its title, as
// the choices are (issue 31, bug 8), and an empty answer takes it.
func TestElicitationEnumDefault(t *testing.T) {
	req := &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "Which?", RequestedSchema: &mcp.ElicitSchema{
		Properties: []mcp.ElicitProperty{
			{Name: "hero", Schema: &mcp.PrimitiveSchema{Type: "string", Default: "hero-2",
				OneOf: []mcp.EnumOption{{Const: "hero-1", Title: "Superman"}, {Const: "hero-2", Title: "Batman"}}}},
			{Name: "team", Schema: &mcp.PrimitiveSchema{Type: "array", Default: []any{"t-2", "t-1"},
				Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "t-1", Title: "Justice League"}, {Const: "t-2", Title: "Avengers"}}}}},
			{Name: "n", Schema: &mcp.PrimitiveSchema{Type: "integer", Default: 3}},
		},
	}}}
	var out bytes.Buffer
	a := &asker{in: strings.NewReader("\n\n\ny\n"), out: &out}
	defer a.close()
	if res := a.elicit(context.Background(), req); res.Action != mcp.ElicitActionAccept {
		t.Fatalf("answer %s\n%s", res.Action, out.String())
	}
	for _, s := range []string{"[one of Superman, Batman; default Batman]", "default Avengers, Justice League]", "[integer; default 3]"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the questions lack %q:\n%s", s, out.String())
		}
	}
}
