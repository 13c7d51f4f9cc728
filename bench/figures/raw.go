//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// rawSession is a stdio MCP session spoken line by line: requests are
// written as JSON-RPC lines and answers read as bytes, never decoded
// beyond their id. The growth figures time the server with it, so that a
// 400 KB catalog is not also timed through the client's decoding of it
// (a go-sdk client decodes the structured content into Go values, which
// for 5,000 verbs cost more than the server's whole answer).
type rawSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// startRaw starts cmd and completes the MCP handshake.
func startRaw(cmd *exec.Cmd) (*rawSession, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &rawSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := s.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"figures","version":"v1"}}`); err != nil {
		s.close()
		return nil, err
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// call sends one request and returns the raw answer line.
func (s *rawSession) call(method, params string) ([]byte, error) {
	s.id++
	if _, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", s.id, method, params); err != nil {
		return nil, err
	}
	result := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":`, s.id)
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		// The SDK writes jsonrpc, id, then result or error: the head
		// says which without decoding a large answer.
		if !bytes.HasPrefix(line, result) {
			var head struct {
				ID    *int            `json:"id"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &head); err != nil {
				return nil, fmt.Errorf("%s: %w: %.200s", method, err, line)
			}
			if head.ID == nil || *head.ID != s.id {
				continue // a notification
			}
			return nil, fmt.Errorf("%s: %.300s", method, line)
		}
		if bytes.Contains(line[max(0, len(line)-80):], []byte(`"isError":true`)) {
			return line, fmt.Errorf("%s: tool error: %.300s", method, line)
		}
		return line, nil
	}
}

// request calls the one tool with arguments.
func (s *rawSession) request(arguments string) ([]byte, error) {
	return s.call("tools/call", `{"name":"request","arguments":`+arguments+`}`)
}

func (s *rawSession) close() {
	s.in.Close()
	s.cmd.Wait()
}
