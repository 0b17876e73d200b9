package redisstore_test

import (
	"context"
	"log"
	"net/http"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/redisstore"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// One replica of a deployment: every process started like this, behind any
// load balancer, serves every session, resumes every stream and hears
// every resource update, because all they share lives in Redis.
func Example() {
	ctx := context.Background()
	opts, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()

	// Every replica signs multi-round requestState with the same key.
	key, err := redisstore.SharedKey(ctx, rdb, nil, "requestState", 32)
	if err != nil {
		log.Fatal(err)
	}
	notifier := redisstore.NewNotifier(rdb, nil, nil)
	defer notifier.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "replicated", Version: "1.0.0"},
		&mcp.ServerOptions{Notifier: notifier, RequestStateKey: key})

	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{
		SessionStore: redisstore.NewSessionStore(rdb, nil),
		EventStore:   redisstore.NewEventStore(rdb, nil),
	})
	defer h.Close()
	http.Handle("/mcp", h)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
