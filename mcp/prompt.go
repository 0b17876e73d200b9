package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gomcp/sdk/jsonrpc"
)

// A PromptHandler renders a prompt. Required arguments have been checked
// before it runs.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

type serverPrompt struct {
	prompt  *Prompt
	handler PromptHandler
}

// AddPrompt adds or replaces the prompt p.Name. It registers nothing and
// returns a *RegistrationError (wrapping ErrInvalidFeature) when the name is
// empty, an argument is nil, unnamed or named twice, or p or h is nil.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) error {
	if p == nil {
		return s.refuse(&RegistrationError{Kind: featurePrompt, Err: errNilFeature})
	}
	fail := func(err error) error {
		return s.refuse(&RegistrationError{Kind: featurePrompt, Name: p.Name, Err: err})
	}
	if h == nil {
		return fail(errNilHandler)
	}
	if p.Name == "" {
		return fail(errors.New("empty name"))
	}
	seen := make(map[string]bool, len(p.Arguments))
	for i, a := range p.Arguments {
		switch {
		case a == nil:
			return fail(fmt.Errorf("argument %d is nil", i))
		case a.Name == "":
			return fail(fmt.Errorf("argument %d has no name", i))
		case seen[a.Name]:
			return fail(fmt.Errorf("argument %q is declared twice", a.Name))
		}
		seen[a.Name] = true
	}
	s.prompts.put([]string{p.Name}, []*serverPrompt{{prompt: p, handler: h}})
	s.registeredFeature(featurePrompt, p.Name)
	s.notifyListChanged(NotificationPromptListChanged)
	return nil
}

// RemovePrompts removes prompts by name.
func (s *Server) RemovePrompts(names ...string) {
	if s.prompts.remove(names...) {
		s.notifyListChanged(NotificationPromptListChanged)
	}
}

func (s *Server) handleListPrompts(ctx context.Context, r *Request) (any, error) {
	var p ListPromptsParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	items, next, err := pageFor(s.viewOf(ctx, r), &s.prompts, p.Cursor, s.opts.PageSize, promptFeature)
	if err != nil {
		return nil, err
	}
	res := &ListPromptsResult{Prompts: make([]*Prompt, len(items)), NextCursor: next}
	for i, it := range items {
		res.Prompts[i] = it.prompt
	}
	return res, nil
}

func (s *Server) handleGetPrompt(ctx context.Context, r *Request) (any, error) {
	var p GetPromptParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	sp, ok := getFor(s.viewOf(ctx, r), &s.prompts, p.Name, promptFeature)
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown prompt %q", p.Name)
	}
	for _, a := range sp.prompt.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: prompt %q needs argument %q", p.Name, a.Name)
		}
	}
	args, _ := json.Marshal(p.Arguments)
	if err := s.beginInput(r.rc, func() string { return bindingOf(r.Method, p.Name, args) }, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	res, err := sp.handler(ctx, newServerRequest(r, &p, p.Meta))
	if ir, err, ok := s.finishInput(r.rc, err); ok {
		return ir, err
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &GetPromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []*PromptMessage{}
	}
	return res, nil
}
