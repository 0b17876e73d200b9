package mcpotel_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
	"github.com/gomcp/sdk/transport"
)

// gauge returns the value of an int64 gauge or sum with no attributes, and
// whether it was found.
func gauge(rm *metricdata.ResourceMetrics, name string) (int64, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				if len(d.DataPoints) == 1 {
					return d.DataPoints[0].Value, true
				}
			case metricdata.Gauge[int64]:
				if len(d.DataPoints) == 1 {
					return d.DataPoints[0].Value, true
				}
			}
		}
	}
	return 0, false
}

// TestLoadGauges holds a request in a tool and a notification in its
// handler, queues more notifications behind it, and reads the gauges
// while they wait and after they are done.
func TestLoadGauges(t *testing.T) {
	tel := newTelemetry()
	inTool, releaseTool := make(chan struct{}), make(chan struct{})
	inNote, releaseNote := make(chan struct{}, 1), make(chan struct{})
	so := mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.ServerSession) {
			select {
			case inNote <- struct{}{}:
			default:
			}
			<-releaseNote
		},
	}
	mcpotel.InstrumentServer(&so, tel.opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-test", Version: "1"}, &so)
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		close(inTool)
		<-releaseTool
		return &mcp.CallToolResult{}, nil
	}))
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion}).Connect(t.Context(), a)
	must(t, err)

	collect := func() (sessions, requests, queued int64) {
		t.Helper()
		var rm metricdata.ResourceMetrics
		must(t, tel.reader.Collect(t.Context(), &rm))
		var ok [3]bool
		sessions, ok[0] = gauge(&rm, "mcp.server.active_sessions")
		requests, ok[1] = gauge(&rm, "mcp.server.active_requests")
		queued, ok[2] = gauge(&rm, "mcp.server.queued_notifications")
		if !ok[0] || !ok[2] {
			t.Fatalf("gauges missing from %+v", rm.ScopeMetrics)
		}
		return sessions, requests, queued
	}

	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wait"})
		called <- err
	}()
	<-inTool
	const notes = 4
	for range notes {
		must(t, cs.Notify(t.Context(), mcp.NotificationRootsListChanged, nil))
	}
	<-inNote // the first is being handled; the others queue behind it
	deadline := time.Now().Add(10 * time.Second)
	for {
		sessions, requests, queued := collect()
		if sessions == 1 && requests == 1 && queued == notes-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions %d, requests %d, queued %d; want 1, 1, %d", sessions, requests, queued, notes-1)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(releaseNote)
	close(releaseTool)
	must(t, <-called)

	recorded := sessionsRecorded(t)
	cs.Close()
	ss.Wait()
	for {
		<-recorded // the session is untracked before its duration is recorded
		if sessions, requests, queued := collect(); sessions == 0 {
			if requests != 0 || queued != 0 {
				t.Errorf("after the session: requests %d, queued %d; want 0", requests, queued)
			}
			break
		}
	}
}
