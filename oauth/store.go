package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// TokenStore keeps what a Client must remember between authorizations:
// tokens (keyed by the server they are for) and client registrations (keyed
// by the authorization server's issuer). Values are opaque bytes. Load
// returns nil and no error for a key it does not hold. Implementations
// must be safe for concurrent use.
type TokenStore interface {
	Load(ctx context.Context, key string) ([]byte, error)
	Save(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
}

// MemoryStore is the default TokenStore: it forgets everything when the
// process ends. The zero value is ready to use.
type MemoryStore struct {
	// Max bounds the number of entries; saving one more drops an arbitrary
	// other. Default 1024.
	Max int

	mu sync.Mutex
	m  map[string][]byte
}

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key], nil
}

// Save implements TokenStore.
func (s *MemoryStore) Save(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	max := s.Max
	if max <= 0 {
		max = 1024
	}
	if _, ok := s.m[key]; !ok && len(s.m) >= max {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// Delete implements TokenStore.
func (s *MemoryStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// FileStore is a TokenStore in one JSON file readable only by its owner
// (mode 0600), for command-line programs that should not log in at every
// run. It rewrites the whole file on each change (through a temporary file
// and a rename), so it suits a handful of entries, not a server's load.
type FileStore struct {
	path string
	// MaxBytes bounds the file read. Default 1 MiB.
	MaxBytes int64

	mu sync.Mutex
}

// NewFileStore returns a FileStore at path; the file is created on the
// first Save.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

func (s *FileStore) read() (map[string][]byte, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max := s.MaxBytes
	if max <= 0 {
		max = 1 << 20
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("oauth: token file %s larger than %d bytes", s.path, max)
	}
	m := map[string][]byte{}
	if err := json.NewDecoder(f).Decode(&m); err != nil {
		return nil, fmt.Errorf("oauth: token file %s: %w", s.path, err)
	}
	return m, nil
}

func (s *FileStore) write(m map[string][]byte) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".oauth-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Load implements TokenStore.
func (s *FileStore) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return nil, err
	}
	return m[key], nil
}

// Save implements TokenStore.
func (s *FileStore) Save(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	m[key] = value
	return s.write(m)
}

// Delete implements TokenStore.
func (s *FileStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	if _, ok := m[key]; !ok {
		return nil
	}
	delete(m, key)
	return s.write(m)
}
