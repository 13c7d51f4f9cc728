//go:build unix

package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// scopeGate answers 403 insufficient_scope, before the SDK reads the
// request, to a tools/call of the one tool none of whose ops the token may
// run: every op names a verb whose class needs a scope ([OAuth].OpScopes)
// the token does not grant. The challenge names the missing scopes (all
// of them, over the ops), so a client can ask its authorization server for
// them and send the request again, as the protocol's scope step-up has
// it. A request of which some op may run goes on: the surface refuses the
// others one by one (insufficient_scope in their results) and runs the
// rest, as a batch does. Anything it cannot read (not a single JSON-RPC
// tools/call of the tool, ops that are not a list of objects) goes on
// too: the surface judges it, op by op.
func scopeGate(o *OAuth, realm string, next http.Handler) http.Handler {
	base := challengeBase(o, realm)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := auth.TokenInfoFromContext(r.Context())
		if r.Method != http.MethodPost || info == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		if err != nil {
			next.ServeHTTP(w, r) // the SDK meets the same error and answers it
			return
		}
		missing := missingScopes(body, o.OpScopes, info.Scopes)
		if len(missing) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		scope := strings.Join(missing, " ")
		w.Header().Set("WWW-Authenticate", base+`, error="insufficient_scope", scope=`+strconv.Quote(scope))
		http.Error(w, fmt.Sprintf("Forbidden: no op of this request may run with this token: it needs the scope %s; ask the authorization server for a token granting it", scope), http.StatusForbidden)
	})
}

// missingScopes reads body as one JSON-RPC tools/call of the one tool and
// returns the scopes granted lacks for its ops, when it lacks one for
// every op; nil otherwise.
func missingScopes(body []byte, opScopes func(string) []string, granted []string) []string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Ops []struct {
					Op string `json:"op"`
				} `json:"ops"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" || msg.Params.Name != verbsurface.ToolName || len(msg.Params.Arguments.Ops) == 0 {
		return nil
	}
	var all []string
	for _, op := range msg.Params.Arguments.Ops {
		missing := verbsurface.MissingScopes(opScopes(op.Op), granted)
		if len(missing) == 0 {
			return nil // this op may run
		}
		all = append(all, missing...)
	}
	return verbsurface.MissingScopes(all, nil)
}
