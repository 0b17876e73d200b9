// How the Streamable HTTP client heals: requests that provably never
// reached the server are sent again, the standalone stream is kept for as
// long as the session lives, and a lost session is opened again with its
// subscriptions.

package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// ErrSessionLost is what a client session ends with (mcp.ClientSession's
// Wait reports it, and its Done channel closes) when the server lost the
// session and a new one could not be opened in its place: the server
// refused the new initialize, or now speaks another revision. A network
// that fails, or a server that is down, never ends the session: the
// client keeps trying for as long as the session lives.
var ErrSessionLost = errors.New("mcphttp: the server lost the session, and a new one could not be opened")

// Bounds on sending a POST again when it provably did not reach the
// server: the attempts, and the time waited for them in all.
const (
	maxSendRetries = 10
	maxRetryWait   = 10 * time.Second
)

// postRetry is post, sending m again, while its context and the bounds
// above allow, when the server provably did not get it: the connection was
// refused (once the server has answered before), or the answer was 503 (from a replica that drains, a store that
// is down, a full server: after its Retry-After when it gives one), or 502
// or 504 (a gateway that could not reach the server). Behind a load
// balancer the next attempt may reach another replica. The error of a
// request that was never sent is marked jsonrpc.ErrNotSent.
func (c *ClientStream) postRetry(ctx context.Context, m *jsonrpc.Message, sid, ver string) (*http.Response, error) {
	var waited time.Duration
	for try := 0; ; try++ {
		resp, err := c.post(ctx, m, sid, ver)
		if err != nil && isRefused(err) {
			err = jsonrpc.NotSent(err)
		}
		wait, again := c.retryDelay(resp, err, try)
		if !again || try == maxSendRetries || waited+wait > maxRetryWait {
			return resp, err
		}
		if resp != nil {
			drain(resp)
		}
		c.log.Debug("mcphttp: the request did not reach the server; sending again", "after", wait, "err", err)
		if !sleep(ctx, wait) {
			return nil, jsonrpc.NotSent(ctx.Err())
		}
		waited += wait
	}
}

// retryDelay says whether a POST that got resp or err is to be sent again,
// and after how long.
func (c *ClientStream) retryDelay(resp *http.Response, err error, try int) (time.Duration, bool) {
	if err != nil {
		// A refused connection is retried once the server has answered
		// this stream: before, it rather means a wrong address or no
		// server at all, which Connect should report at once.
		return jsonrpc.Backoff(try, 50*time.Millisecond, time.Second), errors.Is(err, jsonrpc.ErrNotSent) && c.reached.Load()
	}
	c.reached.Store(true)
	switch resp.StatusCode {
	case http.StatusServiceUnavailable:
		if s := resp.Header.Get("Retry-After"); s != "" {
			secs, err := strconv.Atoi(s)
			if err != nil || secs < 0 {
				return 0, false
			}
			return time.Duration(secs) * time.Second, true
		}
	case http.StatusBadGateway, http.StatusGatewayTimeout:
	default:
		return 0, false
	}
	return jsonrpc.Backoff(try, 100*time.Millisecond, time.Second), true
}

// isRefused reports whether err means the connection could not be made,
// so that nothing was sent.
func isRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// refusedBefore marks err, the error of an answer with status code, with
// jsonrpc.ErrNotSent when that status means the server never handled the
// request (503, 502, 504, 429).
func refusedBefore(code int, err error) error {
	switch code {
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return jsonrpc.NotSent(err)
	}
	return err
}

// runStandalone keeps the standalone stream of session generation gen
// open for as long as the session lives: it reconnects (with Last-Event-ID
// once the server gave event ids) whenever the stream ends or stays silent
// past the idle timeout (a half-open connection), with jittered backoff
// while attempts fail; a 404 opens a new session (whose own stream
// replaces this one). It stops when the server offers no standalone
// stream (405, or another 4xx refusal), and ends the session with
// ErrSessionLost when a lost session cannot be opened again.
func (c *ClientStream) runStandalone(gen int64, ready chan struct{}) {
	var once sync.Once
	markReady := func() { once.Do(func() { close(ready) }) }
	defer markReady()
	cur := sseCursor{retry: c.delay}
	failures := 0
	for c.bg.Err() == nil {
		c.mu.Lock()
		sid, ver, current := c.sessionID, c.version, c.gen == gen
		c.mu.Unlock()
		if !current {
			return
		}
		since := c.answers.Load()
		ok, stop := c.standaloneOnce(gen, sid, ver, &cur, markReady)
		if stop {
			return
		}
		if ok {
			failures = 0
		} else {
			failures++
		}
		if !c.pause(failures, cur.retry, since) {
			return
		}
	}
}

// pause waits before the standalone stream's next attempt, after failures
// failed ones in a row (see backoff), and reports false once the stream is
// closed. Backing off after failures, it stops waiting once a POST of the
// session is answered after the failed attempt began (since, a count of
// answers then), be it before the wait or during it: the server is back,
// and every moment longer the session's notifications are away. It waits
// retry at least, so that a stream refused while requests succeed is not
// retried at the rate of the requests.
func (c *ClientStream) pause(failures int, retry time.Duration, since uint64) bool {
	d := c.backoff(failures, retry)
	if failures == 0 {
		return sleep(c.bg, d)
	}
	began := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	for c.answers.Load() == since {
		select {
		case <-t.C:
			return true
		case <-c.answered: // a token may be older than since: count again
		case <-c.bg.Done():
			return false
		}
	}
	return sleep(c.bg, retry-time.Since(began))
}

// backoff is the wait before reconnecting a stream after failures failed
// attempts in a row: the server's retry interval, then jittered backoff
// from it up to MaxReconnectDelay.
func (c *clientCore) backoff(failures int, retry time.Duration) time.Duration {
	if failures == 0 {
		return retry
	}
	return jsonrpc.Backoff(failures-1, retry, max(c.maxDelay, retry))
}

// healthyStream is how long a standalone stream must have stayed open to
// count as a success, whether or not it carried a message.
const healthyStream = 2 * time.Second

// standaloneOnce opens the standalone stream once and reads it until it
// ends. It reports whether the attempt went well (the stream carried a
// message or stayed open for a while), and whether to stop for good.
func (c *ClientStream) standaloneOnce(gen int64, sid, ver string, cur *sseCursor, markReady func()) (ok, stop bool) {
	ctx, cancel := context.WithCancel(c.bg)
	defer cancel()
	began := time.Now()
	var unanswered *time.Timer
	if c.idle > 0 {
		// A GET the network swallowed gets no answer at all.
		unanswered = time.AfterFunc(c.idle, cancel)
	}
	resp, err := c.get(ctx, sid, ver, cur.lastID)
	if unanswered != nil {
		unanswered.Stop()
	}
	markReady()
	switch {
	case err != nil:
		c.log.Debug("mcphttp: standalone SSE stream: connecting", "err", err)
		return false, false
	case resp.StatusCode == http.StatusOK && mediaType(resp) == "text/event-stream":
		stopWatch := c.watchIdle(resp)
		cur.progress = false
		err := c.consume(resp.Body, cur, func(m *jsonrpc.Message) bool { return !c.deliver(m) })
		resp.Body.Close()
		stopWatch()
		c.log.Debug("mcphttp: standalone SSE stream ended; reconnecting", "err", err)
		return cur.progress || time.Since(began) >= healthyStream, false
	case resp.StatusCode == http.StatusNotFound:
		drain(resp)
		err := c.reinitialize(c.bg, gen)
		if err == nil || errors.Is(err, jsonrpc.ErrClosed) {
			return true, true // the new session runs its own stream
		}
		if lost(err) {
			c.fail(fmt.Errorf("%w: %w", ErrSessionLost, err))
			return false, true
		}
		c.log.Debug("mcphttp: the session was lost; opening a new one failed, trying again", "err", err)
		return false, false
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusConflict ||
		resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		// Busy or down, or the old stream not yet noticed gone (409).
		drain(resp)
		return false, false
	default:
		// 405, or another refusal (servers that offer no stream answer
		// 400 too): the stream is optional, and the session goes on
		// without it, its requests answered on their own streams.
		drain(resp)
		c.log.Debug("mcphttp: no standalone SSE stream", "status", resp.Status)
		return false, true
	}
}

// lost reports whether err, from opening a new session, means that no
// attempt will succeed: the server answered, and said no.
func lost(err error) bool {
	var je *jsonrpc.Error
	var he *HTTPError
	switch {
	case errors.Is(err, errRevisionChanged):
		return true
	case errors.As(err, &he):
		c := he.StatusCode
		return c >= 400 && c < 500 && c != http.StatusNotFound && c != http.StatusConflict &&
			c != http.StatusTooManyRequests && c != http.StatusRequestTimeout
	}
	return errors.As(err, &je)
}

// watchIdle closes resp's body once it stayed silent for the idle timeout,
// and returns the function that stops watching.
func (c *clientCore) watchIdle(resp *http.Response) (stop func()) {
	if c.idle <= 0 {
		return func() {}
	}
	body := resp.Body
	t := time.AfterFunc(c.idle, func() { body.Close() })
	resp.Body = &idleBody{ReadCloser: body, t: t, d: c.idle}
	return func() { t.Stop() }
}

// idleBody is the body of a long-lived stream, whose every read pushes
// back the idle timer t: a server sends keep-alive comments on an idle
// stream, so silence for d means a half-open connection.
type idleBody struct {
	io.ReadCloser
	t *time.Timer
	d time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.t.Reset(b.d)
	}
	return n, err
}

var errRevisionChanged = errors.New("the server now speaks another revision")

// remember records, for a new session to be given after a 404, the
// requests that set up server-side state: resource subscriptions and the
// log level. Unsubscribing forgets the subscription.
func (c *ClientStream) remember(m *jsonrpc.Message) {
	switch m.Method {
	case mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe, mcp.MethodLoggingSetLevel:
	default:
		return
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(m.Params, &p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.setup == nil {
		c.setup = make(map[string]*jsonrpc.Message)
	}
	switch m.Method {
	case mcp.MethodLoggingSetLevel:
		c.setup[m.Method] = m
	case mcp.MethodResourcesSubscribe:
		if len(c.setup) < maxSetup {
			c.setup[m.Method+" "+p.URI] = m
		}
	default:
		delete(c.setup, mcp.MethodResourcesSubscribe+" "+p.URI)
	}
}

// maxSetup bounds the requests remembered for a new session.
const maxSetup = 10000

// reinitialize opens a new session after the server answered 404 for
// session generation failedGen: it replays the client's initialize request
// (under an id of its own, so the answer does not reach the mcp.Client),
// checks that the server still speaks the revision the session negotiated
// (and tells the client when it declares other capabilities), sends the
// initialized notification, then the subscriptions and the log
// level the client had set up, and starts the new standalone stream.
// Concurrent callers share one re-initialization.
func (c *ClientStream) reinitialize(ctx context.Context, failedGen int64) error {
	c.reinitMu.Lock()
	defer c.reinitMu.Unlock()
	c.mu.Lock()
	switch {
	case c.closing:
		// A write racing Close (a late answer to a server request, say)
		// found the session ended by Close's own DELETE: no new session.
		c.mu.Unlock()
		return jsonrpc.ErrClosed
	case c.gen != failedGen:
		c.mu.Unlock()
		return nil // someone else already did it
	}
	init, initialized, was := c.initReq, c.initialized, c.version
	setup := make([]*jsonrpc.Message, 0, len(c.setup))
	for _, m := range c.setup {
		setup = append(setup, m)
	}
	c.mu.Unlock()
	if init == nil {
		return errors.New("no initialize request to replay")
	}
	c.log.Info("mcphttp: session not found; initializing a new one", "url", c.url)
	sid, r, err := c.internalCall(ctx, init, "", "")
	if err != nil {
		return err
	}
	v, caps := resultVersion(r.Result), resultCaps(r.Result)
	if was != "" && v != was {
		return fmt.Errorf("%w (%q, not %q)", errRevisionChanged, v, was)
	}
	c.mu.Lock()
	if c.closing {
		// Close began meanwhile, and ended the session it knew: end the
		// new one too, or the server keeps it until it times out.
		c.mu.Unlock()
		if sid != "" {
			c.deleteSession(sid, v)
		}
		return jsonrpc.ErrClosed
	}
	c.sessionID = sid
	if v != "" {
		c.version = v
	}
	changed := !bytes.Equal(c.caps, caps)
	c.caps, c.initResult = caps, r.Result
	c.gen++
	gen := c.gen
	c.mu.Unlock()
	if err := c.setUp(ctx, gen, sid, v, initialized, setup); err != nil {
		return err
	}
	if changed {
		c.featuresChanged()
	}
	return nil
}

// InitializeResult returns the raw result of the latest initialize on the
// stream: the client's own, or, after the server lost the session, the
// one the stream replayed to open a new session (see ClientOptions). An
// mcp.ClientSession reads it, so that its InitializeResult and
// ServerCapabilities describe the server now serving it. It is nil before
// initialize and for a 2026-07-28 client, which has none.
func (c *ClientStream) InitializeResult() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initResult
}

// featuresChanged tells the mcp.Client that the server now serving the
// session declared other capabilities than the one that opened it (a new
// deployment, say): its tools, prompts and resources may have changed, so
// the client hears the three list_changed notifications, which drop what
// it cached of them and reach the application's handlers.
func (c *ClientStream) featuresChanged() {
	c.log.Info("mcphttp: the new session's server declares other capabilities; its lists may have changed")
	for _, method := range []string{mcp.NotificationToolListChanged, mcp.NotificationPromptListChanged, mcp.NotificationResourceListChanged} {
		c.push(jsonrpc.NewNotification(method, json.RawMessage("{}")))
	}
}

// resultCaps returns the capabilities member of an initialize result.
func resultCaps(result json.RawMessage) json.RawMessage {
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(result, &r)
	return r.Capabilities
}

// setUp sends what follows initialize on a new session: initialized, the
// requests that set up server state, and the standalone stream.
func (c *ClientStream) setUp(ctx context.Context, gen int64, sid, ver string, initialized *jsonrpc.Message, setup []*jsonrpc.Message) error {
	if initialized != nil {
		resp, err := c.postRetry(ctx, initialized, sid, ver)
		if err != nil {
			return err
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return httpError(resp)
		}
		drain(resp)
	}
	for _, m := range setup {
		if _, _, err := c.internalCall(ctx, m, sid, ver); err != nil {
			c.log.Warn("mcphttp: the new session refused a subscription of the old one", "method", m.Method, "err", err)
		}
	}
	c.startStandalone(ctx, gen)
	return nil
}

// internalCall sends request m under an internal id, so that its answer
// reaches not the mcp.Client but the caller, and returns the answer and the
// session id the server's answer named. An error answer is the error.
func (c *ClientStream) internalCall(ctx context.Context, m *jsonrpc.Message, sid, ver string) (string, *jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	c.mu.Lock()
	c.internalSerial++
	id := jsonrpc.StringID("mcphttp-internal-" + strconv.FormatInt(c.internalSerial, 10))
	if c.internal == nil {
		c.internal = make(map[jsonrpc.ID]chan *jsonrpc.Message)
	}
	c.internal[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.internal, id)
		c.mu.Unlock()
	}()
	resp, err := c.postRetry(ctx, jsonrpc.NewRequest(id, m.Method, m.Params), sid, ver)
	if err != nil {
		return "", nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", nil, httpError(resp)
	}
	newSID := resp.Header.Get(headerSessionID)
	switch mediaType(resp) {
	case "application/json":
		r, err := c.readJSON(resp)
		if err != nil {
			return "", nil, err
		}
		c.deliver(r)
	case "text/event-stream":
		var cur sseCursor
		err := c.consume(resp.Body, &cur, func(m *jsonrpc.Message) bool {
			c.deliver(m)
			return len(ch) > 0
		})
		resp.Body.Close()
		if len(ch) == 0 {
			return "", nil, fmt.Errorf("%s stream ended: %v", m.Method, err)
		}
	default:
		drain(resp)
	}
	var r *jsonrpc.Message
	select {
	case r = <-ch:
	default:
		return "", nil, fmt.Errorf("no answer to %s", m.Method)
	}
	if r.Error != nil {
		return "", nil, r.Error
	}
	return newSID, r, nil
}
