package cli

import (
	"fmt"
	"io"
	"os"
)

// The files the commands read (a mock, a gateway configuration, an access
// file, a server.json) are read through these, so that a file too large is
// refused with its name and the limit instead of filling memory.

// readFileBounded reads the file at path, refusing one over limit bytes.
func readFileBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllBounded(f, path, limit)
}

// readBounded reads file ("-": stdin), refusing more than limit bytes.
func readBounded(file string, stdin io.Reader, limit int64) ([]byte, error) {
	if file == "-" {
		return readAllBounded(stdin, file, limit)
	}
	return readFileBounded(file, limit)
}

// readAllBounded reads r to its end, refusing more than limit bytes; name
// names r in that error.
func readAllBounded(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}
