package gosdkserver

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ErrNotFound is what the Backend returns for a repository, issue, pull
// request, branch or file that does not exist.
var ErrNotFound = errors.New("not found")

// Repo is a repository as the forge stores it.
type Repo struct {
	Owner         string   `json:"owner"`
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	Private       bool     `json:"private"`
	DefaultBranch string   `json:"default_branch"`
	Topics        []string `json:"topics,omitempty"`
	Stars         int      `json:"stars"`
}

// Issue is an issue or, with PR set, the issue half of a pull request.
type Issue struct {
	Number    int      `json:"number"`
	Title     string   `json:"title"`
	Body      string   `json:"body,omitempty"`
	State     string   `json:"state"`
	Labels    []string `json:"labels,omitempty"`
	Assignees []string `json:"assignees,omitempty"`
	Comments  []string `json:"comments,omitempty"`
	Milestone int      `json:"milestone,omitempty"`
}

// PullRequest is a pull request between two branches.
type PullRequest struct {
	Number  int      `json:"number"`
	Title   string   `json:"title"`
	Body    string   `json:"body,omitempty"`
	Head    string   `json:"head"`
	Base    string   `json:"base"`
	State   string   `json:"state"`
	Draft   bool     `json:"draft"`
	Merged  bool     `json:"merged"`
	Reviews []Review `json:"reviews,omitempty"`
}

// Review is one review of a pull request.
type Review struct {
	User  string `json:"user"`
	Event string `json:"event"`
	Body  string `json:"body,omitempty"`
}

// Run is one CI workflow run.
type Run struct {
	ID         int    `json:"id"`
	Workflow   string `json:"workflow"`
	Branch     string `json:"branch"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
}

type repoData struct {
	Repo
	branches map[string]map[string]string // branch -> path -> content
	issues   []*Issue
	pulls    []*PullRequest
	runs     []*Run
	labels   []string
}

// Backend is the in-memory forge the tools talk to, standing in for the
// REST client a real server holds. It is safe for concurrent use.
type Backend struct {
	mu    sync.Mutex
	repos map[string]*repoData
	me    string
	notes []string
}

// NewBackend returns a forge with one user, me, and no repositories.
func NewBackend(me string) *Backend {
	return &Backend{repos: map[string]*repoData{}, me: me}
}

func key(owner, repo string) string { return owner + "/" + repo }

// CreateRepo adds a repository with a default branch holding a README.
func (b *Backend) CreateRepo(r Repo) (*Repo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Owner == "" {
		r.Owner = b.me
	}
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	k := key(r.Owner, r.Name)
	if _, ok := b.repos[k]; ok {
		return nil, fmt.Errorf("repository %s already exists", k)
	}
	b.repos[k] = &repoData{
		Repo:     r,
		branches: map[string]map[string]string{r.DefaultBranch: {"README.md": "# " + r.Name + "\n"}},
		labels:   []string{"bug", "enhancement"},
	}
	out := r
	return &out, nil
}

func (b *Backend) repo(owner, name string) (*repoData, error) {
	r, ok := b.repos[key(owner, name)]
	if !ok {
		return nil, fmt.Errorf("repository %s/%s: %w", owner, name, ErrNotFound)
	}
	return r, nil
}

// do runs f on one repository under the backend's lock.
func (b *Backend) do(owner, name string, f func(*repoData) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.repo(owner, name)
	if err != nil {
		return err
	}
	return f(r)
}

// SearchRepos returns the repositories whose name or description holds q.
func (b *Backend) SearchRepos(q string) []Repo {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Repo
	for _, r := range b.repos {
		if strings.Contains(r.Name, q) || strings.Contains(r.Description, q) {
			out = append(out, r.Repo)
		}
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i].Owner, out[i].Name) < key(out[j].Owner, out[j].Name) })
	return out
}

// Me returns the authenticated user's login.
func (b *Backend) Me() string { return b.me }

// Notify records a notification for the user.
func (b *Backend) Notify(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notes = append(b.notes, s)
}

// Notifications returns the user's notifications and, with clear, drops them.
func (b *Backend) Notifications(clear bool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.notes)
	if clear {
		b.notes = nil
	}
	return out
}

func (r *repoData) issue(n int) (*Issue, error) {
	for _, i := range r.issues {
		if i.Number == n {
			return i, nil
		}
	}
	return nil, fmt.Errorf("issue #%d: %w", n, ErrNotFound)
}

func (r *repoData) pull(n int) (*PullRequest, error) {
	for _, p := range r.pulls {
		if p.Number == n {
			return p, nil
		}
	}
	return nil, fmt.Errorf("pull request #%d: %w", n, ErrNotFound)
}

func (r *repoData) nextNumber() int { return len(r.issues) + len(r.pulls) + 1 }

func (r *repoData) branch(name string) (map[string]string, error) {
	if name == "" {
		name = r.DefaultBranch
	}
	files, ok := r.branches[name]
	if !ok {
		return nil, fmt.Errorf("branch %q: %w", name, ErrNotFound)
	}
	return files, nil
}
