package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gomcp/sdk/mcp"
)

// maxRounds bounds the input-required rounds of one forwarded request that
// the gateway answers from its caller's answers before giving up.
const maxRounds = 16

// inputRounds is the Sending middleware of every upstream session that
// answers a 2026-07-28 upstream's input-required rounds as a whole (the
// request declares the caller's capabilities: see callerCaps): the
// upstream's inputRequests go to the caller through its request, keys and
// all, in one round, as the upstream named them (the SDK's client would
// answer them one by one, and the gateway could not tell their keys). The
// caller's answers (this round's and those its requestState carries) come
// back under the same keys, and the gateway retries the upstream with them
// and the upstream's requestState. When the caller must answer first, the
// upstream call is abandoned: the caller's retry starts it again and the
// upstream asks again, now answered (see doc.go).
func (u *upstream) inputRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		a, ok := ctx.Value(askerKey{}).(*asker)
		if !ok || !retryable(r.Method) {
			return next(ctx, r)
		}
		for round := 0; ; round++ {
			res, err := next(ctx, r)
			raw, isRaw := res.(json.RawMessage)
			if err != nil || !isRaw || !inputRequired(raw) {
				return res, err
			}
			if round >= maxRounds {
				return nil, fmt.Errorf("gateway: upstream %q still needs input after %d rounds", u.name, round)
			}
			var ir mcp.InputRequiredResult
			if err := json.Unmarshal(raw, &ir); err != nil {
				return nil, fmt.Errorf("gateway: upstream %q: decoding input-required result: %w", u.name, err)
			}
			answers, err := a.askAll(ctx, ir.InputRequests)
			if err != nil {
				return nil, err
			}
			if r.Params, err = withAnswers(r.Params, answers, ir.RequestState); err != nil {
				return nil, err
			}
		}
	}
}

// askAll puts all the questions of one upstream round to the asker's
// client at once, under the upstream's keys.
func (a *asker) askAll(ctx context.Context, qs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
	qctx, cancel := context.WithCancel(a.context())
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := a.req.Input(qctx, qs)
	if errors.Is(err, mcp.ErrInputRequired) {
		a.needInput(err)
	}
	if err != nil {
		return nil, err
	}
	for k := range qs {
		if res[k] == nil {
			return nil, fmt.Errorf("gateway: the client gave no answer to %q", k)
		}
	}
	return res, nil
}

// retryable reports whether method may come back input-required.
func retryable(method string) bool {
	switch method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet, mcp.MethodResourcesRead:
		return true
	}
	return false
}

// inputRequired reports whether raw is an InputRequiredResult.
func inputRequired(raw json.RawMessage) bool {
	if !bytes.Contains(raw, []byte(`"input_required"`)) {
		// Most results: no second decoding. (The SDK's client, too, reads
		// the value as written, unescaped.)
		return false
	}
	var head struct {
		ResultType mcp.ResultType `json:"resultType"`
	}
	return json.Unmarshal(raw, &head) == nil && head.ResultType == mcp.ResultTypeInputRequired
}

// withAnswers returns params with the retry's inputResponses and
// requestState set, everything else as it was.
func withAnswers(params json.RawMessage, answers map[string]*mcp.InputResponse, state string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, err
		}
	}
	rs, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	m["inputResponses"] = rs
	delete(m, "requestState")
	if state != "" {
		if m["requestState"], err = json.Marshal(state); err != nil {
			return nil, err
		}
	}
	return json.Marshal(m)
}
