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
// so that service returns by itself at once. Redis replicates
// asynchronously, so with Options.ReplicaAcks (1 by default on a Cluster)
// the stores acknowledge a notice, an event, a task's creation or change
// and a session's save only once a replica holds it (WAIT, in the write's
// own round trip): a master that dies loses none of them, and a write cut
// short by its death fails with ErrUnavailable (a notice is appended
// again from the outbox, and heard once).
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
//
// # How it is built
//
// Everything a stateful deployment shares lives behind the seams of mcp,
// mcphttp and tasks, and redisstore puts it in Redis: a session's SessionState is one JSON string key
// (GETEX renews its TTL on every load); each SSE stream is a Redis stream
// whose entry ids are the event ids (XADD with an exact MAXLEN, in one Lua
// script that also indexes the stream in its session's set and renews both
// TTLs, so DeleteSession finds every stream); a task is a JSON key expiring at
// its ExpiresAt, listed through a per-owner index (two sorted sets, by
// creation and by expiry), updated optimistically with WATCH/MULTI; notices go
// out on one Redis stream (XADD with an approximate MAXLEN), delivered to the
// publishing process's own subscribers at once and skipped when they come
// back; each process reads it with XREAD BLOCK from the last entry it saw, so
// one cut off from Redis hears what it missed when it is back. Every notice
// goes through a bounded outbox, queued before the process's own
// subscribers hear it and appended in that order by one goroutine (in
// batches, one round trip each), so that a notice published after the
// process heard another reaches the others after it, and Publish returns
// once Redis holds its notice; one it could not append waits there until
// Redis answers again (Publish fails only when the outbox is full; each
// notice carries a random id, and a Notifier skips one it heard already, so a
// notice appended twice, its first append's outcome unknown, is heard
// once). Every write that must survive a failover goes in a pipeline on the
// connection of the key's master, followed by WAIT (durable.go: WAIT counts
// the writes of its own connection, and a ClusterClient's pipeline would
// send the keyless WAIT to any node); a master whose replicas do not answer
// within Options.ReplicaAckTimeout is written to without waiting for ten
// seconds. Nothing is kept per session in process memory, and every key
// has a TTL. A Redis error wraps redisstore.ErrUnavailable; the transport
// answers it with 503 and Retry-After (a failed load, a failed save of the
// session, which mcp reports as -32000 "server busy", a notice it could not
// pass on), and the client's pool reconnects by itself. The client's answer to
// a server request (sampling, elicitation) may reach a replica other than the
// one waiting for it: the Handler that receives it passes it on as an
// mcphttp/response notice, and the copy whose call waits for it takes it. A
// GET resuming a POST stream of another process follows it from the EventStore
// until its answer is stored (blocking on the store's Wait if it is an
// mcphttp.EventWaiter, as redisstore's is with XREAD BLOCK for at most
// Options.MaxEventWaits GETs at once, each holding a pool connection; polling
// otherwise), since the request may still be running there. ReplayCache shares
// DPoP proof identifiers (auth.ReplayCache, one key per key thumbprint and
// proof, expiring with the proof; bounded by Redis's memory, with no quota per
// key). Each store has Ping for readiness checks. A Handler holding a session
// neither loads nor saves it while serving it, so a shared store with Touch
// (redisstore's renews the TTL) is told, at most once a minute per session,
// that it is in use.
//
// Every store takes a redis.UniversalClient, so a single node, Sentinel
// (redis.NewFailoverClient) and Redis Cluster (redis.NewClusterClient) serve
// alike, and no script or transaction spans two Cluster slots. The keys one
// script touches share a hash tag, { and a hash of the session id or owner }
// (never empty, never a brace, whatever the name holds), and are equal up to
// its closing brace, so a brace in Options.Prefix cannot split them. A task's
// key and its owner's index are in different slots: Create reserves the id in
// the index (the per-owner bound checked in the same script, which first drops
// the ids that expired by Redis's clock), then writes the task with SET NX,
// undoing the reservation if the id is taken (not when Redis failed: the write
// may have been made); Delete deletes the task, then the index entry. Every
// live task is thus in its owner's index, the bound is never exceeded, and an
// index may name a gone task until that task's expiry (List skips it). The
// stream of notices is one key, so on a Cluster one shard carries every notice
// and every process reads it there. redisstore's tests run each store against
// a single node, the same through Sentinel and a three-master Cluster,
// TestClusterFailover kills a master of a six-node Cluster of its own (the
// stores fail with ErrUnavailable, and any such failure has the client reload
// the slot map, so service returns as soon as the replica takes over, with
// nothing lost), TestReplicaAcks holds a replica's link and kills its master
// (what it never passed on fails rather than being acknowledged and lost),
// and internal/replicas runs three replicas and the conformance
// suite on the Cluster (everything-server -redis-cluster), and kills a master
// under three replicas serving clients: every request is answered, or refused
// with 503 and Retry-After while the replica takes over, no session or
// subscription is lost, and every resource update reaches its subscriber
// exactly once.
package redisstore
