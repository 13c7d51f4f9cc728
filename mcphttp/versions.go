//go:build unix

package mcphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessVersion is the first protocol version served without sessions
// (SEP-2567, SEP-2575): each request names its version in the
// MCP-Protocol-Version header and in its own _meta, and the SDK serves
// it only on a stateless handler.
const statelessVersion = "2026-07-28"

// protocolVersionHeader is the header a client names its version in after
// initialization, and on every request from 2026-07-28 (the SDK's name for
// it is unexported).
const protocolVersionHeader = "Mcp-Protocol-Version"

// versionRouter sends each request to one of two SDK handlers over the
// same *mcp.Server: stateless, for requests on protocol 2026-07-28 and
// later, and stateful, for the older versions' sessions. The SDK serves
// the newer versions only without sessions and the older ones only with
// them, so one endpoint serving both needs both handlers.
//
// A request is on 2026-07-28 or later when its MCP-Protocol-Version
// header says so (versions are dates, so they compare as strings) or,
// without the header, when a POST opening no session carries a
// protocol version in its _meta: the stateless handler then refuses it
// for the missing header, which tells the client what to fix, where the
// stateful one would refuse the version itself. Every other request (an
// initialize, a request on a session, a GET or DELETE naming one) is the
// stateful handler's, whose session cap and idle timer apply as before.
//
// The router stands after the body gate, so the body it peeks at is one
// already admitted within MaxBodyBytes and the decoding budget; it reads
// it under the same cap, and hands the bytes on (handedBody: held once).
type versionRouter struct {
	stateful, stateless http.Handler
	maxBody             int64
	name                string
}

func (v *versionRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if version := r.Header.Get(protocolVersionHeader); version != "" {
		if version >= statelessVersion {
			v.stateless.ServeHTTP(w, r)
		} else {
			v.stateful.ServeHTTP(w, r)
		}
		return
	}
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" || r.Body == nil {
		v.stateful.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, v.maxBody))
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(r, RefusedBodyTooLarge)
			closeAfter(w)
			http.Error(w, fmt.Sprintf("%s: Request Entity Too Large: a body is at most %d bytes (--max-body-bytes)", v.name, mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, fmt.Sprintf("%s: Bad Request: reading the body: %v", v.name, err), http.StatusBadRequest)
		return
	}
	newer := metaVersion(body) != ""
	r.Body = &handedBody{b: body}
	body = nil
	if newer {
		v.stateless.ServeHTTP(w, r)
		return
	}
	v.stateful.ServeHTTP(w, r)
}

// handedBody is a body the router has read, handed on to the SDK, which
// reads every body whole into a buffer of its own (io.ReadAll): once it
// has, the router's copy is let go (b is the only reference left to it),
// so while the request is decoded and served its body is held once, as on
// every other path, not twice.
type handedBody struct{ b []byte }

func (h *handedBody) Read(p []byte) (int, error) {
	if len(h.b) == 0 {
		h.b = nil
		return 0, io.EOF
	}
	n := copy(p, h.b)
	h.b = h.b[n:]
	return n, nil
}

func (h *handedBody) Close() error {
	h.b = nil
	return nil
}

// metaVersion is the protocol version in the _meta of a single JSON-RPC
// request body, or "" (a batch, a body that does not parse, no _meta):
// the handler the request then reaches judges it.
func metaVersion(body []byte) string {
	if !bytes.Contains(body, []byte(mcp.MetaKeyProtocolVersion)) {
		return "" // most bodies: not decoded a second time to learn it
	}
	var msg struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return ""
	}
	var version string
	if json.Unmarshal(msg.Params.Meta[mcp.MetaKeyProtocolVersion], &version) != nil {
		return ""
	}
	return version
}
