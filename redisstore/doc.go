// Package redisstore keeps the shared state of a gomcp deployment in Redis,
// so that several server processes behind a load balancer serve every
// client without affinity: sessions (a shared.SessionStore, and a
// shared.SessionUpdater whose changes are made with WATCH so that two
// processes changing one session at once both keep theirs), the SSE events
// a client resumes a broken stream from (an mcphttp.EventStore), the
// notices that carry resource updates, list changes and stream takeovers
// between processes (a shared.Notifier), tasks (a tasks.TaskStore), the key
// that signs requestState (SharedKey) and the identifiers of the DPoP
// proofs already used (ReplayCache, an auth.ReplayCache).
//
// Every store takes a redis.UniversalClient: a single node
// (redis.NewClient), Sentinel (redis.NewFailoverClient) and Redis Cluster
// (redis.NewClusterClient) serve alike. No script or transaction spans two
// Cluster slots: the keys one touches share a hash tag (see TaskStore for
// the one pair of writes that cannot, and the order that keeps its bound).
// When a Cluster master fails, requests for its slots fail with
// ErrUnavailable until its replica takes over (the nodes'
// cluster-node-timeout and an election: about two seconds with a timeout
// of one), and every such failure has the client read the slot map again,
// so that service returns by itself at once. Writes the replica had not
// received when the master died are lost: Redis replicates asynchronously.
//
// It lives in a package of its own so that programs that keep the
// in-memory defaults never import the Redis client.
//
// Every key the stores write has a TTL: a session's state lives for
// Options.SessionTTL after it was last saved or loaded, a stream's events
// for Options.EventTTL after the stream was last appended to (each stream
// holds at most Options.MaxStreamEvents events), a task until its expiry,
// a DPoP proof identifier until the proof's, the stream of notices for
// Options.EventTTL after the last (holding about Options.MaxNotices), so
// that memory in Redis stays bounded however many sessions come and go. The stores keep
// nothing per session in process memory.
//
// When Redis is unreachable, every method returns an error (wrapping the
// client's; but Notifier.Publish, whose notice waits in a bounded outbox
// until Redis is back), which mcphttp turns into a JSON-RPC error with HTTP status
// 503; the client reconnects by itself, so service resumes when Redis is
// back. Configure the client to fail fast (small DialTimeout, ReadTimeout
// and WriteTimeout, MaxRetries and DialerRetries of 1), so that requests
// get their 503 at once rather than after the client's retries. Each store
// has a Ping method for readiness checks.
package redisstore
