package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gomcp/sdk/mcp"
)

// A tool that asks the user for a typed form. The same handler works at
// every revision: here the client speaks 2026-07-28, so the first ElicitFor
// fails with ErrInputRequired, the handler returns it, the client answers
// and the handler runs again, this time with the answer.
func ExampleElicitFor() {
	type guest struct {
		Name   string `json:"name" description:"Who is coming?"`
		Guests int    `json:"guests,omitempty" jsonschema:"minimum=0,maximum=8"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "tables", Version: "1.0.0"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "book"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		g, res, err := mcp.ElicitFor[guest](ctx, req, "Booking a table")
		if err != nil {
			return "", err // ErrInputRequired at 2026-07-28: returned as it is
		}
		if res.Action != mcp.ElicitActionAccept {
			return "not booked", nil
		}
		return fmt.Sprintf("booked for %s and %d guests", g.Name, g.Guests), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message, "- fields:", req.Params.RequestedSchema.Properties[0].Name, req.Params.RequestedSchema.Properties[1].Name)
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada", "guests": 2}}, nil
		},
	})
	cs := connectInMemory(s, c)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "book"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Booking a table - fields: name guests
	// booked for Ada and 2 guests
}

// A tool that logs with log/slog: its records reach the client as
// notifications/message about the request, at every revision, at the
// levels the client asked for.
func ExampleServerRequest_Logger() {
	s := mcp.NewServer(&mcp.Implementation{Name: "worker", Version: "1.0.0"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		logger := req.Logger()
		logger.Debug("details nobody asked for")
		logger.Info("working", "step", 1)
		return "done", nil
	})
	if err != nil {
		log.Fatal(err)
	}
	logs := make(chan string, 2)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			logs <- p.Level.String() + " " + string(p.Data)
		},
	})
	cs := connectInMemory(s, c)
	defer cs.Close()
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-logs)
	// Output:
	// info {"msg":"working","step":1}
}
