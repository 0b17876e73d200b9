package compat

import (
	"context"
	"fmt"
	"io"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

type tapW struct{ w io.WriteCloser; name string }
func (t tapW) Write(p []byte) (int, error) { fmt.Printf("%s %s", t.name, p); return t.w.Write(p) }
func (t tapW) Close() error { return t.w.Close() }

func TestDebugInit(t *testing.T) {
	f := newOurFixture(nil)
	p := newPipes(t, kindIOPipe)
	ss, _ := f.server.Connect(context.Background(), transport.NewLineStream(p.c2sR, tapW{p.s2cW, "S>"}, closeAll{p.c2sR, p.s2cW}, nil))
	defer ss.Close()
	client, _ := newGoSDKTestClient()
	cs, err := client.Connect(context.Background(), &gosdk.IOTransport{Reader: p.s2cR, Writer: tapW{p.c2sW, "C>"}}, nil)
	if err != nil { t.Fatal(err) }
	cs.Ping(context.Background(), nil)
	cs.Close()
}
