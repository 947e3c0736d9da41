package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/compartment/compartment/embed"
)

// mcpClient speaks newline-delimited JSON-RPC to `compartment serve` on
// its stdin and stdout, one call at a time.
type mcpClient struct {
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func (c *mcpClient) call(method string, params any) (json.RawMessage, error) {
	c.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("bench: mcp %s: %w", method, err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("bench: mcp %s: %w", method, err)
		}
		var reply struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &reply) != nil || reply.ID == nil || *reply.ID != c.id {
			continue // a notification, or not ours
		}
		if reply.Error != nil {
			return nil, fmt.Errorf("bench: mcp %s: %s", method, reply.Error.Message)
		}
		return reply.Result, nil
	}
}

func (c *mcpClient) notify(method string) error {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	_, err := c.in.Write(append(req, '\n'))
	return err
}

// measureServer starts `compartment serve` on the vault, times memory_search
// tool calls as an agent makes them, and reads the server's RSS.
func (p benchProcs) measureServer(path string, queries []string, rep *LatencyReport) error {
	cmd := p.command([]string{"COMPARTMENT_PASSPHRASE=" + benchPass}, "--vault", path, "serve")
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("bench: serve: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("bench: serve: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("bench: serve: %w", err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	c := &mcpClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "compartment-bench", "version": "1"}}); err != nil {
		return err
	}
	if err := c.notify("notifications/initialized"); err != nil {
		return fmt.Errorf("bench: serve: %w", err)
	}
	search := func(q string) error {
		res, err := c.call("tools/call", map[string]any{"name": "memory_search", "arguments": map[string]any{"query": q}})
		if err == nil && strings.Contains(string(res), `"isError":true`) {
			err = fmt.Errorf("bench: memory_search: %s", res)
		}
		return err
	}
	for _, q := range queries[:min(len(queries), 30)] {
		if err := search(q); err != nil {
			return err
		}
	}
	lat := make(latencies, len(queries))
	for pass := range latencyPasses {
		for i, q := range queries {
			t := time.Now()
			if err := search(q); err != nil {
				return err
			}
			if d := time.Since(t); pass == 0 || d < lat[i] {
				lat[i] = d
			}
		}
	}
	rep.MCPSearchP50Ms, rep.MCPSearchP95Ms = lat.p(0.50), lat.p(0.95)
	rep.ServerRSSMB, rep.ServerPeakMB = rssOf(cmd.Process.Pid)
	return nil
}

// Long windows for the daemon: 40 generated claims make about 360 words,
// which fills one 448-token window of the bundled model (word tokens) and
// spills into a second for a sub-word model.
func longWindowTexts(n int) []string {
	const perText = 40
	claims := GenerateClaims(3, n*perText)
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for _, c := range claims[i*perText : (i+1)*perText] {
			b.WriteString(c.Text)
			b.WriteString(". ")
		}
		out[i] = b.String()
	}
	return out
}

// daemonBatch is how many long windows each measured daemon batch holds.
const daemonBatch = 64

// measureDaemon starts an embedding daemon on a private socket serving the
// model, reads its RSS once loaded and after two batches of long windows,
// then stops it.
func (p benchProcs) measureDaemon(model string, rep *LatencyReport) error {
	socket := filepath.Join(p.dir, "embed.sock")
	if len(embed.DaemonArgv) == 0 {
		embed.DaemonArgv = []string{p.exe, "embed-daemon", "run"}
	}
	enc, err := embed.DialDaemon(socket, embed.LoadOptions{Name: model})
	if err != nil {
		return err
	}
	defer embed.StopDaemon(socket)
	defer enc.Close()
	rep.DaemonModel = enc.Info().Name
	st, err := embed.DaemonStatusAt(socket)
	if err != nil {
		return err
	}
	rep.DaemonRSSLoadedMB = st.RSSMB
	texts := longWindowTexts(daemonBatch)
	for range 2 {
		docs, err := enc.EmbedDocuments(texts)
		if err != nil {
			return fmt.Errorf("bench: daemon batch: %w", err)
		}
		rep.DaemonBatchWindows = 0
		for _, d := range docs {
			rep.DaemonBatchWindows += len(d.Vectors)
		}
	}
	if st, err = embed.DaemonStatusAt(socket); err != nil {
		return err
	}
	rep.DaemonRSSBatchesMB = st.RSSMB
	return nil
}
