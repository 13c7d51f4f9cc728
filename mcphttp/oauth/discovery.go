package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// orDefault is v, or def when v is not positive (a Config's zero value).
func orDefault[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// clientOrDefault is c, or a client with a 10-second timeout.
func clientOrDefault(c *http.Client) *http.Client {
	if c == nil {
		return &http.Client{Timeout: 10 * time.Second}
	}
	return c
}

// nowOrDefault is now, or time.Now.
func nowOrDefault(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// checkURL refuses a URL that is not absolute https (http on a loopback
// host), or that carries a fragment or user information.
func checkURL(what, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("oauth: %s %q is not an absolute URL without fragment or user", what, s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
			return nil
		}
	}
	return fmt.Errorf("oauth: %s %q must be https (http is allowed on a loopback host only)", what, s)
}

// issuerMetadata is what this package reads of an issuer's metadata.
type issuerMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	TokenEndpoint         string `json:"token_endpoint"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// endpoint returns the metadata's endpoint named key (its JSON name),
// checked by checkURL, or an error saying the issuer has none and why it
// is needed.
func (m *issuerMetadata) endpoint(key, why string) (string, error) {
	var u string
	switch key {
	case "jwks_uri":
		u = m.JWKSURI
	case "token_endpoint":
		u = m.TokenEndpoint
	case "introspection_endpoint":
		u = m.IntrospectionEndpoint
	}
	if u == "" {
		return "", fmt.Errorf("oauth: issuer %s publishes no %s: %s", m.Issuer, key, why)
	}
	if err := checkURL(key, u); err != nil {
		return "", fmt.Errorf("oauth: issuer %s: %w", m.Issuer, err)
	}
	return u, nil
}

// discover reads the issuer's metadata: OpenID discovery first, then RFC
// 8414.
func discover(ctx context.Context, client *http.Client, issuer string) (*issuerMetadata, error) {
	iss := strings.TrimSuffix(issuer, "/")
	u, _ := url.Parse(iss)
	rfc8414 := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + u.Path
	var errs []error
	for _, doc := range []string{iss + "/.well-known/openid-configuration", rfc8414} {
		var meta issuerMetadata
		if err := getJSON(ctx, client, doc, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		// RFC 8414 section 3.3 and OpenID discovery section 4.3: the
		// document must name the issuer it was fetched for.
		if meta.Issuer != issuer {
			return nil, fmt.Errorf("oauth: %s names issuer %q, not the configured %q", doc, meta.Issuer, issuer)
		}
		return &meta, nil
	}
	return nil, fmt.Errorf("oauth: issuer %s publishes no metadata: %w", issuer, errors.Join(errs...))
}

func getJSON(ctx context.Context, client *http.Client, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oauth: GET %s: %s", u, resp.Status)
	}
	return readJSON(resp.Body, "GET "+u, dst)
}

// readJSON decodes one document of at most maxDocumentBytes from body;
// what names the request in errors. No error repeats the document, which
// may hold a token.
func readJSON(body io.Reader, what string, dst any) error {
	b, err := io.ReadAll(io.LimitReader(body, maxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", what, err)
	}
	if len(b) > maxDocumentBytes {
		return fmt.Errorf("oauth: %s: the document is larger than %d bytes", what, maxDocumentBytes)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("oauth: %s: not JSON (at byte %d)", what, syn.Offset)
		case errors.As(err, &typ):
			return fmt.Errorf("oauth: %s: %q is not a %s", what, typ.Field, typ.Type)
		}
		return fmt.Errorf("oauth: %s: not the expected JSON", what)
	}
	return nil
}

// postForm posts form to endpoint authenticated as creds by HTTP Basic
// (client_secret_basic, RFC 6749 section 2.3.1: both parts
// form-urlencoded first) and decodes a 200 answer into dst. Any other
// status is returned as a *statusError holding the OAuth error object, if
// the answer has one.
func postForm(ctx context.Context, client *http.Client, endpoint string, creds Credentials, form url.Values, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(creds.ClientID), url.QueryEscape(creds.Secret))
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error names the endpoint; the form is in the body, not
		// the URL, so no token is in it.
		return fmt.Errorf("oauth: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		se := &statusError{endpoint: endpoint, status: resp.Status, code: resp.StatusCode}
		_ = readJSON(resp.Body, "POST "+endpoint, &se.body)
		return se
	}
	return readJSON(resp.Body, "POST "+endpoint, dst)
}

// statusError is an endpoint's answer other than 200, with the OAuth
// error object (RFC 6749 section 5.2) when it sent one.
type statusError struct {
	endpoint, status string
	code             int
	body             struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
}

func (e *statusError) Error() string {
	return fmt.Sprintf("oauth: POST %s: %s", e.endpoint, e.status)
}
