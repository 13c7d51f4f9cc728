package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

const backend = "https://backend.example/api"

// tokenRequests counts requests to the token endpoint.
type tokenRequests struct{ n atomic.Int32 }

func (c *tokenRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/oauth/token" {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func newExchanger(t *testing.T, p *oauthtest.Provider, secret string, clk *clock, count *tokenRequests, size int) *oauth.Exchanger {
	t.Helper()
	cfg := &oauth.ExchangeConfig{Issuer: p.Issuer, Credentials: oauth.Credentials{ClientID: "mcp", Secret: secret},
		Client: &http.Client{Transport: count}, CacheSize: size, Scopes: []string{"backend:read"}}
	if clk != nil {
		cfg.Now = clk.Now
	}
	e, err := oauth.NewExchanger(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// exchangeProvider has the server's client "mcp", permitted to exchange
// for the backend, and two callers whose tokens are for this server.
func exchangeProvider(t *testing.T) *oauthtest.Provider {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs", ExchangeTo: []string{backend}, Lifetime: 10 * time.Minute})
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s1", Audience: []string{audience}})
	p.AddClient(oauthtest.Client{ID: "bob", Secret: "s2", Audience: []string{audience}, Opaque: true})
	return p
}

// A caller's token, JWT or opaque, is exchanged at the real provider for
// a token for the backend that stands for the same subject: the backend's
// own verifier accepts it, with the scopes asked for.
func TestExchange(t *testing.T) {
	p := exchangeProvider(t)
	e := newExchanger(t, p, "rs", nil, &tokenRequests{}, 0)
	backendVerifier, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: backend})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, subject := range []string{"alice", "bob"} {
		t.Run(subject, func(t *testing.T) {
			caller := p.Token(t, subject)
			tok, err := e.Exchange(ctx, caller, backend)
			if err != nil {
				t.Fatal(err)
			}
			if tok.AccessToken == caller || tok.Expiry.Before(time.Now().Add(9*time.Minute)) {
				t.Errorf("exchanged token %v: want a new token living about 10 minutes", tok)
			}
			info, err := backendVerifier.Verify(ctx, tok.AccessToken, nil)
			if err != nil {
				t.Fatalf("the backend refuses the exchanged token: %v", err)
			}
			if info.UserID != subject || info.Extra["client_id"] != "mcp" || len(info.Scopes) != 1 || info.Scopes[0] != "backend:read" {
				t.Errorf("exchanged token says %+v; want subject %s, client mcp, scope backend:read", info, subject)
			}
			for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%+v", tok), fmt.Sprintf("%#v", tok)} {
				if strings.Contains(s, tok.AccessToken) {
					t.Errorf("printing a Token shows it: %s", s)
				}
			}
		})
	}
}

// The issuer's refusals come back as *ExchangeError with its code, and
// an unreachable issuer as ErrUnavailable; no error holds the subject
// token.
func TestExchangeRefused(t *testing.T) {
	p := exchangeProvider(t)
	ctx := context.Background()
	caller := p.Token(t, "alice")
	for _, c := range []struct {
		name, secret, audience, subject string
		code                            string
	}{
		{"an audience the client may not obtain", "rs", "https://elsewhere.example", caller, "invalid_target"},
		{"wrong client secret", "wrong", backend, caller, "invalid_client"},
		{"a subject token that is not the issuer's", "rs", backend, "bm90IGEgdG9rZW4", "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newExchanger(t, p, c.secret, nil, &tokenRequests{}, 0)
			tok, err := e.Exchange(ctx, c.subject, c.audience)
			var ee *oauth.ExchangeError
			if !errors.As(err, &ee) || ee.Code != c.code || tok.AccessToken != "" {
				t.Fatalf("Exchange = %v, %v; want an *ExchangeError with code %s", tok, err, c.code)
			}
			if strings.Contains(err.Error(), c.subject) {
				t.Errorf("error %q holds the subject token", err)
			}
		})
	}
	t.Run("issuer down", func(t *testing.T) {
		e := newExchanger(t, p, "rs", nil, &tokenRequests{}, 0)
		p.Close()
		_, err := e.Exchange(ctx, caller, backend)
		if !errors.Is(err, oauth.ErrUnavailable) || strings.Contains(err.Error(), caller) {
			t.Fatalf("Exchange with the issuer down: %v; want ErrUnavailable without the token", err)
		}
	})
}

// An exchanged token is reused for the same subject token and audience
// until Margin before it expires, and at most CacheSize are kept.
func TestExchangeCache(t *testing.T) {
	p := exchangeProvider(t)
	ctx := context.Background()
	t.Run("until shortly before expiry", func(t *testing.T) {
		clk, count := &clock{t: time.Now()}, &tokenRequests{}
		e := newExchanger(t, p, "rs", clk, count, 0)
		caller := p.Token(t, "alice")
		first, err := e.Exchange(ctx, caller, backend)
		if err != nil {
			t.Fatal(err)
		}
		// expires_in is whole seconds, rounded down by the issuer.
		clk.Add(10*time.Minute - oauth.DefaultExchangeMargin - 5*time.Second)
		again, err := e.Exchange(ctx, caller, backend)
		if err != nil || again.AccessToken != first.AccessToken || count.n.Load() != 1 {
			t.Fatalf("within the lifetime less the margin: %v, %d requests; want the same token, 1 request", err, count.n.Load())
		}
		// A caller changing what it got does not change what is kept.
		if len(again.Scopes) != 1 || again.Scopes[0] != "backend:read" {
			t.Fatalf("scopes %q, want [backend:read]", again.Scopes)
		}
		again.Scopes[0] = "backend:admin"
		if kept, _ := e.Exchange(ctx, caller, backend); kept.Scopes[0] != "backend:read" {
			t.Errorf("the kept token's scopes changed by a caller: %q", kept.Scopes)
		}
		clk.Add(5 * time.Second)
		fresh, err := e.Exchange(ctx, caller, backend)
		if err != nil || fresh.AccessToken == first.AccessToken || count.n.Load() != 2 {
			t.Fatalf("within the margin: %v, %d requests; want a new token", err, count.n.Load())
		}
		// Another caller's token is another key.
		if other, err := e.Exchange(ctx, p.Token(t, "alice"), backend); err != nil || other.AccessToken == fresh.AccessToken {
			t.Fatalf("another subject token: %v, the same exchanged token", err)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		clk, count := &clock{t: time.Now()}, &tokenRequests{}
		e := newExchanger(t, p, "rs", clk, count, 2)
		callers := []string{p.Token(t, "alice"), p.Token(t, "alice"), p.Token(t, "alice")}
		for _, c := range append(callers, callers[1:]...) {
			if _, err := e.Exchange(ctx, c, backend); err != nil {
				t.Fatal(err)
			}
		}
		if n := count.n.Load(); n != 3 {
			t.Fatalf("%d exchanges, want 3 (the last two kept)", n)
		}
		if _, err := e.Exchange(ctx, callers[0], backend); err != nil {
			t.Fatal(err)
		}
		if n := count.n.Load(); n != 4 {
			t.Fatalf("%d exchanges, want 4 (the first was dropped)", n)
		}
	})
}
