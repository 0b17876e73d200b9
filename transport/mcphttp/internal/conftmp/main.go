package main

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	s := everything.NewServer(nil)
	mcp.AddTool(s, &mcp.Tool{Name: "test_reconnection", Description: "closes the stream"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		mcphttp.CloseSSEStream(ctx)
		time.Sleep(100 * time.Millisecond)
		return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.", nil
	})
	json := os.Getenv("JSONMODE") == "1"
	http.Handle("/mcp", mcphttp.NewHandler(s, &mcphttp.HandlerOptions{JSONResponse: json, Stateless: os.Getenv("STATELESS") == "1"}))
	http.ListenAndServe(os.Args[1], nil)
}
