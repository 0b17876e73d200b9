//go:build pprof

package main

import (
	"log"
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

// A CPU profile for measuring the command at process level (bench/run.sh
// measures mcp gateway this way): built only with -tags pprof, it profiles
// the first MCP_CPUPROFILE_SECONDS (default 10) into the file
// MCP_CPUPROFILE names, followed by "." and the process id. A release
// build has none of it.
func init() {
	path := os.Getenv("MCP_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path + "." + strconv.Itoa(os.Getpid()))
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	secs, err := strconv.Atoi(os.Getenv("MCP_CPUPROFILE_SECONDS"))
	if err != nil || secs <= 0 {
		secs = 10
	}
	time.AfterFunc(time.Duration(secs)*time.Second, func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	})
}
