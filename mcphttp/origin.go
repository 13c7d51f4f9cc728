//go:build unix

package mcphttp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originPolicy is the Origin check the MCP Streamable HTTP transport asks
// of servers ("Servers MUST validate the Origin header on all incoming
// connections to prevent DNS rebinding attacks"). Its rules, in the order
// they are checked:
//
//  1. no Origin header: a client that is not a browser page. Passes, unless
//     Sec-Fetch-Site says a browser sent it from another site (a
//     navigation, which carries no Origin).
//  2. same-origin: scheme http, the port the connection arrived on, and a
//     host that is "localhost", a loopback address, or the address the
//     connection arrived on. Such a page could only be served by this
//     server, which serves none. Passes.
//  3. an origin listed in Options.AllowOrigins (--allow-origin). Passes.
//  4. anything else, "null" included: 403, naming the origin and the flag.
//
// It applies to every method: GET opens the session's event stream and
// DELETE ends a session, so neither is "safe" here. That is why it is not
// http.CrossOriginProtection, which passes GET, HEAD and OPTIONS and takes
// an Origin equal to the Host header as same-origin, which is exactly what
// a DNS-rebinding page presents on a non-loopback bind. The SDK's own
// DNS-rebinding protection (loopback connection, non-loopback Host: 403)
// stays on behind it.
type originPolicy struct {
	// allow holds the canonical forms (see canonicalOrigin) of AllowOrigins.
	allow map[string]bool
	// name is Options.Name, for the refusal the client reads.
	name string
}

func newOriginPolicy(allow []string, name string) originPolicy {
	p := originPolicy{allow: make(map[string]bool, len(allow)), name: name}
	for _, o := range allow {
		if c, err := canonicalOrigin(o); err == nil {
			p.allow[c] = true
		}
	}
	return p
}

func (p originPolicy) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := p.check(r); err != nil {
			refuse(r, RefusedOrigin)
			closeAfter(w)
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check applies the rules of originPolicy to r.
func (p originPolicy) check(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		switch site := r.Header.Get("Sec-Fetch-Site"); site {
		case "cross-site", "same-site":
			return fmt.Errorf("%s: Forbidden: a browser request from another site (Sec-Fetch-Site: %s) without an Origin", p.name, site)
		}
		return nil
	}
	c, err := canonicalOrigin(origin)
	if err == nil && (p.sameOrigin(r, c) || p.allow[c]) {
		return nil
	}
	return fmt.Errorf("%s: Forbidden: Origin %q is not this server's; the operator admits a browser origin with --allow-origin ORIGIN", p.name, truncate(origin, 200))
}

// sameOrigin reports whether the canonical origin c names this server as
// the connection reached it.
func (originPolicy) sameOrigin(r *http.Request, c string) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	u, _ := url.Parse(c) // c is canonical, so this parses
	if u.Scheme != "http" || u.Port() != lport {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.Equal(net.ParseIP(lhost)))
}

// ParseOrigin checks an --allow-origin value (an [Options].AllowOrigins
// entry) and returns it canonical:
// "scheme://host:port", lower case, with the port always written (the
// browser leaves out a default one). Only http and https origins with a
// host and nothing after it are accepted; "*" and "null" are not origins
// an operator can mean.
func ParseOrigin(s string) (string, error) {
	c, err := canonicalOrigin(s)
	if err != nil {
		return "", fmt.Errorf("mcphttp: --allow-origin %q: %v (want scheme://host[:port], e.g. https://app.example:8443)", s, err)
	}
	return c, nil
}

func canonicalOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", err
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("scheme %q is not http or https", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("no host")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return "", fmt.Errorf("an origin is scheme, host and port only")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), nil
}

// truncate cuts what a client sent to n bytes before it is quoted back.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
