package oauth_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// introspections counts requests to the introspection endpoint.
type introspections struct{ n atomic.Int32 }

func (c *introspections) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == oauthtest.IntrospectionPath {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// introspectingVerifier is a verifier that accepts opaque tokens by
// introspection, as the client "mcp" (secret "rs").
func introspectingVerifier(t *testing.T, p *oauthtest.Provider, clk *clock, count *introspections, size int) *oauth.Verifier {
	t.Helper()
	cfg := &oauth.Config{Issuer: p.Issuer, Audience: audience, Introspection: &oauth.Credentials{ClientID: "mcp", Secret: "rs"}, CacheSize: size,
		Client: &http.Client{Transport: count}}
	if clk != nil {
		cfg.Now = clk.Now
	}
	v, err := oauth.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every case of TestVerify that applies to an opaque token holds for one
// the issuer introspects: the same TokenInfo as a JWT for a good token;
// expired, not yet valid, for another resource, of another issuer, and
// made up, each refused with a 401 saying why and never repeating it.
func TestVerifyIntrospected(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "expired", Secret: "s2", Audience: []string{audience}, Lifetime: -time.Hour, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "early", Secret: "s3", Audience: []string{audience}, Skew: -time.Hour, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "other", Secret: "s4", Audience: []string{"https://other.example/mcp"}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "jwt", Secret: "s5", Audience: []string{audience}})
	addOtherResources(p, true)
	count := &introspections{}
	v := introspectingVerifier(t, p, nil, count, 0)
	ctx := context.Background()
	checkOtherResources(t, p, v)

	t.Run("good token", func(t *testing.T) {
		tok := p.Token(t, "good", "verbsurface:read", "verbsurface:write")
		if strings.Count(tok, ".") == 2 {
			t.Fatalf("the provider issued a JWT, not an opaque token")
		}
		info, err := v.Verify(ctx, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		jwtInfo, err := v.Verify(ctx, p.Token(t, "jwt", "verbsurface:read", "verbsurface:write"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if info.UserID != "good" || !slices.Equal(info.Scopes, jwtInfo.Scopes) || info.Extra["client_id"] != "good" ||
			info.Extra["iss"] != jwtInfo.Extra["iss"] || info.Expiration.IsZero() {
			t.Errorf("introspected TokenInfo = %+v; a JWT's = %+v", info, jwtInfo)
		}
	})
	q := oauthtest.Start(t)
	q.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}, Opaque: true})
	for _, c := range []struct{ name, token, want string }{
		{"expired", p.Token(t, "expired"), "not active"},
		{"not yet valid", p.Token(t, "early"), "not valid before"},
		{"token for another resource", p.Token(t, "other"), "not for this server"},
		{"another issuer's token", q.Token(t, "good"), "not active"},
		{"made up", "c29tZXRoaW5nIG1hZGUgdXA", "not active"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(ctx, c.token, nil)
			checkRefused(t, err, c.token, c.want)
			if strings.Contains(err.Error(), c.token) {
				t.Errorf("error %q repeats the token", err)
			}
		})
	}
	// A token in JWT form is judged by the local rules only: a forged
	// one is refused without asking the issuer.
	t.Run("JWT form judged locally", func(t *testing.T) {
		before := count.n.Load()
		good := p.Token(t, "jwt")
		parts := strings.Split(good, ".")
		forged := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
		_, err := v.Verify(ctx, forged, nil)
		checkRefused(t, err, forged, "signature does not verify")
		none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + "."
		_, err = v.Verify(ctx, none, nil)
		checkRefused(t, err, none, "accepted algorithm")
		if _, err := v.Verify(ctx, good, nil); err != nil {
			t.Fatal(err)
		}
		if n := count.n.Load() - before; n != 0 {
			t.Errorf("%d introspection requests for JWTs, want none", n)
		}
	})
}

// An introspection endpoint that fails or cannot be reached is never a
// pass: the error wraps oauth.ErrUnavailable, not auth.ErrInvalidToken
// (so the answer is 503, not 401), and says what failed.
func TestIntrospectionUnavailable(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}, Opaque: true})
	v := introspectingVerifier(t, p, nil, &introspections{}, 0)
	ctx := context.Background()
	check := func(t *testing.T, tok, want string) {
		t.Helper()
		info, err := v.Verify(ctx, tok, nil)
		if err == nil || info != nil {
			t.Fatalf("Verify = %+v, %v; want an error", info, err)
		}
		if !errors.Is(err, oauth.ErrUnavailable) || errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("error %v: want ErrUnavailable and not ErrInvalidToken", err)
		}
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), tok) {
			t.Errorf("error %q: want it to say %q and not repeat the token", err, want)
		}
	}
	p.BreakIntrospection(true)
	check(t, p.Token(t, "good"), "500")
	p.BreakIntrospection(false)
	tok := p.Token(t, "good")
	p.Close()
	check(t, tok, "connection refused")

	// Wrong credentials of this server are the operator's mistake, not
	// the caller's: unavailable too, never a refusal of a good token.
	p2 := oauthtest.Start(t)
	p2.AddClient(oauthtest.Client{ID: "mcp", Secret: "another"})
	p2.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}, Opaque: true})
	v = introspectingVerifier(t, p2, nil, &introspections{}, 0)
	check(t, p2.Token(t, "good"), "401")
}

// A JWT whose keys cannot be fetched is neither accepted nor refused
// either: the key set past its age, the issuer down, ErrUnavailable.
func TestKeysUnavailable(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}})
	clk := &clock{t: time.Now()}
	v := newVerifier(t, p, clk, nil)
	tok := p.Token(t, "good")
	p.Close()
	clk.Add(oauth.DefaultKeysMaxAge)
	_, err := v.Verify(context.Background(), tok, nil)
	if !errors.Is(err, oauth.ErrUnavailable) || errors.Is(err, auth.ErrInvalidToken) || strings.Contains(err.Error(), tok) {
		t.Fatalf("Verify with the key set out of reach: %v; want ErrUnavailable without the token", err)
	}
}

// Introspection answers are reused: for at most CacheTTL, never past the
// token's exp, and at most CacheSize of them.
func TestIntrospectionCache(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "brief", Secret: "s2", Audience: []string{audience}, Opaque: true, Lifetime: 10 * time.Second})
	ctx := context.Background()

	t.Run("TTL", func(t *testing.T) {
		clk, count := &clock{t: time.Now()}, &introspections{}
		v := introspectingVerifier(t, p, clk, count, 0)
		tok := p.Token(t, "good")
		for range 3 {
			if _, err := v.Verify(ctx, tok, nil); err != nil {
				t.Fatal(err)
			}
		}
		if n := count.n.Load(); n != 1 {
			t.Fatalf("%d introspections within the TTL, want 1", n)
		}
		clk.Add(oauth.DefaultCacheTTL)
		if _, err := v.Verify(ctx, tok, nil); err != nil {
			t.Fatal(err)
		}
		if n := count.n.Load(); n != 2 {
			t.Fatalf("%d introspections after the TTL, want 2", n)
		}
	})
	t.Run("never past exp", func(t *testing.T) {
		clk, count := &clock{t: time.Now()}, &introspections{}
		v := introspectingVerifier(t, p, clk, count, 0)
		tok := p.Token(t, "brief")
		if _, err := v.Verify(ctx, tok, nil); err != nil {
			t.Fatal(err)
		}
		// Past exp and the leeway, within the TTL: asked again, and the
		// answer's exp refuses it.
		clk.Add(10*time.Second + oauth.DefaultLeeway + time.Second)
		_, err := v.Verify(ctx, tok, nil)
		checkRefused(t, err, tok, "expired at")
		if n := count.n.Load(); n != 2 {
			t.Fatalf("%d introspections, want 2", n)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		clk, count := &clock{t: time.Now()}, &introspections{}
		v := introspectingVerifier(t, p, clk, count, 2)
		toks := []string{p.Token(t, "good"), p.Token(t, "good"), p.Token(t, "good")}
		for _, tok := range toks {
			clk.Add(time.Second) // distinct deadlines: the first is nearest
			if _, err := v.Verify(ctx, tok, nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, tok := range toks[1:] {
			if _, err := v.Verify(ctx, tok, nil); err != nil {
				t.Fatal(err)
			}
		}
		if n := count.n.Load(); n != 3 {
			t.Fatalf("%d introspections, want 3 (the last two kept)", n)
		}
		if _, err := v.Verify(ctx, toks[0], nil); err != nil {
			t.Fatal(err)
		}
		if n := count.n.Load(); n != 4 {
			t.Fatalf("%d introspections, want 4 (the first was dropped)", n)
		}
	})
	t.Run("concurrent callers", func(t *testing.T) {
		v := introspectingVerifier(t, p, nil, &introspections{}, 2)
		toks := []string{p.Token(t, "good"), p.Token(t, "good"), p.Token(t, "good")}
		var wg sync.WaitGroup
		errs := make(chan error, 8*len(toks))
		for range 8 {
			for _, tok := range toks {
				wg.Go(func() {
					if info, err := v.Verify(ctx, tok, nil); err != nil || info.UserID != "good" {
						errs <- fmt.Errorf("%v %v", info, err)
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	t.Run("a caller's change does not reach the cache", func(t *testing.T) {
		v := introspectingVerifier(t, p, nil, &introspections{}, 0)
		tok := p.Token(t, "good", "verbsurface:read")
		info, err := v.Verify(ctx, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		info.Scopes[0], info.Extra["client_id"] = "verbsurface:admin", "mallory"
		again, err := v.Verify(ctx, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		if again.Scopes[0] != "verbsurface:read" || again.Extra["client_id"] != "good" {
			t.Errorf("cached TokenInfo changed by a caller: %+v", again)
		}
	})
}

// New refuses introspection the issuer does not offer or credentials
// that are missing.
func TestNewIntrospectionRefuses(t *testing.T) {
	p := oauthtest.Start(t)
	_, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: audience, Introspection: &oauth.Credentials{ClientID: "mcp"}})
	if err == nil || !strings.Contains(err.Error(), "client id and secret") {
		t.Errorf("New without a secret: %v", err)
	}
}
