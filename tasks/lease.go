package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// Leases. A task's record carries a lease (Record.LeaseUntil) that the
// process running its handler renews: one goroutine per Manager, running
// while the Manager runs handlers, renews the leases of all of them every
// Options.Lease/3 (in one call when the store is a LeaseRenewer). A process
// killed with SIGKILL renews nothing, and any process reading the task
// after its lease lapsed (tasks/get, tasks/result, tasks/list, tasks/update,
// tasks/cancel) records it as failed, so that no task stays working
// forever: its clients learn it within Lease of the crash plus their poll
// interval.
//
// A lapsed task fails; it is not run again, even when its tool is
// idempotent: the record does not keep the request (its arguments, or the
// session to ask questions through), a handler that reported progress or
// asked questions cannot resume halfway, and the client that reads the
// failure can call again knowing what it asked for.

// A LeaseRenewer is a TaskStore that extends the leases of many tasks in
// one call (redisstore's does it in one round trip per node); a Manager
// whose store is not one renews them with one Update each.
type LeaseRenewer interface {
	// RenewLeases sets LeaseUntil to until on every task of ids that
	// exists and has not ended. Tasks that are gone or ended are skipped;
	// an error means some leases may not have been renewed.
	RenewLeases(ctx context.Context, ids []string, until time.Time) error
}

// errLeaseHeld stops marking a task failed: its lease was renewed, or it
// ended, meanwhile.
var errLeaseHeld = errors.New("tasks: the task's lease is held")

// leaseUntil is the lease of a task written at now, zero without leases.
func (m *Manager) leaseUntil(now time.Time) time.Time {
	if m.opts.Lease <= 0 {
		return time.Time{}
	}
	return now.Add(m.opts.Lease)
}

// lapsed reports whether rec's handler stopped renewing its lease before
// the task ended.
func lapsed(rec *Record, now time.Time) bool {
	return !rec.Status.Terminal() && !rec.LeaseUntil.IsZero() && now.After(rec.LeaseUntil)
}

// addRunLocked records that r's handler runs here, and starts the renewer
// if it is the first. m.mu is held.
func (m *Manager) addRunLocked(r *run) {
	m.runs[r.id] = r
	if m.opts.Lease > 0 && !m.renewing {
		m.renewing = true
		m.wg.Add(1)
		go m.renew()
	}
}

// removeRunLocked forgets r's run, and wakes the renewer to stop when it
// was the last. m.mu is held.
func (m *Manager) removeRunLocked(id string) {
	delete(m.runs, id)
	if len(m.runs) == 0 && m.renewing {
		select {
		case m.idle <- struct{}{}:
		default:
		}
	}
}

// renew renews the leases of the tasks running here every Lease/3, until
// none runs.
func (m *Manager) renew() {
	defer m.wg.Done()
	every := m.opts.Lease / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-m.idle:
		}
		m.mu.Lock()
		if len(m.runs) == 0 {
			m.renewing = false
			m.mu.Unlock()
			return
		}
		ids := make([]string, 0, len(m.runs))
		for id := range m.runs {
			ids = append(ids, id)
		}
		m.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), every)
		m.renewLeases(ctx, ids, m.leaseUntil(time.Now()))
		cancel()
	}
}

// renewLeases extends the leases of ids to until.
func (m *Manager) renewLeases(ctx context.Context, ids []string, until time.Time) {
	if lr, ok := m.store.(LeaseRenewer); ok {
		if err := lr.RenewLeases(ctx, ids, until); err != nil {
			m.log.Warn("tasks: renewing leases", "tasks", len(ids), "err", err)
		}
		return
	}
	for _, id := range ids {
		_, err := m.store.Update(ctx, id, func(rec *Record) error {
			if rec.Status.Terminal() {
				return errTerminal
			}
			rec.LeaseUntil = until
			return nil
		})
		if err != nil && !errors.Is(err, errTerminal) && !errors.Is(err, ErrNotFound) {
			m.log.Warn("tasks: renewing a lease", "task", id, "err", err)
		}
	}
}

// get reads a task, settled (see settle).
func (m *Manager) get(ctx context.Context, id string) (*Record, error) {
	rec, err := m.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return m.settle(ctx, rec), nil
}

// settle returns rec, recorded as failed first if its lease lapsed: the
// process running its handler stopped (it was killed, or lost the store
// for longer than the lease) without recording an outcome. A task whose
// handler runs here is left alone. When the store cannot be written, rec
// is returned as it was read.
func (m *Manager) settle(ctx context.Context, rec *Record) *Record {
	if !lapsed(rec, time.Now()) {
		return rec
	}
	m.mu.Lock()
	_, here := m.runs[rec.ID]
	m.mu.Unlock()
	if here {
		return rec
	}
	out, err := m.store.Update(ctx, rec.ID, func(r *Record) error {
		now := time.Now()
		if !lapsed(r, now) {
			return errLeaseHeld
		}
		msg := fmt.Sprintf("the server running the task stopped: its lease lapsed at %s without an outcome", timestamp(r.LeaseUntil))
		r.Status, r.StatusMessage = TaskStatusFailed, msg
		r.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, msg)
		r.InputRequests, r.InputResponses = nil, nil
		r.UpdatedAt = now.UTC()
		return nil
	})
	switch {
	case errors.Is(err, errLeaseHeld):
		if cur, err := m.store.Get(ctx, rec.ID); err == nil {
			return cur
		}
		return rec
	case err != nil:
		m.log.Warn("tasks: failing a task whose lease lapsed", "task", rec.ID, "err", err)
		return rec
	}
	m.log.Warn("tasks: a task's lease lapsed: failed", "task", rec.ID)
	m.changed(out)
	return out
}
