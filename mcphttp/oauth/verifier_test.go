package oauth_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

const audience = "https://mcp.example/mcp"

// clock is a settable clock for the key cache's ages.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// jwksCounter counts fetches of the key set.
type jwksCounter struct{ n atomic.Int32 }

func (c *jwksCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "keys") {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func newVerifier(t *testing.T, p *oauthtest.Provider, clk *clock, rt http.RoundTripper) *oauth.Verifier {
	t.Helper()
	cfg := &oauth.Config{Issuer: p.Issuer, Audience: audience, Scopes: []string{"verbsurface:read"}}
	if clk != nil {
		cfg.Now = clk.Now
	}
	if rt != nil {
		cfg.Client = &http.Client{Transport: rt}
	}
	v, err := oauth.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkRefused asserts a refusal that is a 401 (wraps auth.ErrInvalidToken),
// names the rule, and repeats no part of the token.
func checkRefused(t *testing.T, err error, token, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want refused with %q", want)
	}
	if !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("error %v does not wrap auth.ErrInvalidToken", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	for _, part := range strings.Split(token, ".") {
		if len(part) > 8 && strings.Contains(err.Error(), part) {
			t.Errorf("error %q repeats part of the token", err)
		}
	}
}

func TestVerify(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}})
	p.AddClient(oauthtest.Client{ID: "expired", Secret: "s2", Audience: []string{audience}, Lifetime: -time.Hour})
	p.AddClient(oauthtest.Client{ID: "early", Secret: "s3", Audience: []string{audience}, Skew: -time.Hour})
	p.AddClient(oauthtest.Client{ID: "other", Secret: "s4", Audience: []string{"https://other.example/mcp"}})
	addOtherResources(p, false)
	v := newVerifier(t, p, nil, nil)
	ctx := context.Background()

	t.Run("good token", func(t *testing.T) {
		info, err := v.Verify(ctx, p.Token(t, "good", "verbsurface:read", "verbsurface:write"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if info.UserID != "good" || !slices.Equal(info.Scopes, []string{"verbsurface:read", "verbsurface:write"}) || info.Expiration.IsZero() {
			t.Errorf("TokenInfo = %+v", info)
		}
		if info.Extra["client_id"] != "good" {
			t.Errorf("client_id = %v, want good", info.Extra["client_id"])
		}
	})
	for _, c := range []struct{ name, client, want string }{
		{"expired", "expired", "expired at"},
		{"not yet valid", "early", "not valid before"},
		{"token for another resource", "other", "not for this server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tok := p.Token(t, c.client)
			_, err := v.Verify(ctx, tok, nil)
			checkRefused(t, err, tok, c.want)
		})
	}
	checkOtherResources(t, p, v)
	t.Run("wrong issuer", func(t *testing.T) {
		// Another issuer signing with the very same key: only iss tells.
		q := oauthtest.Start(t)
		q.ShareKeys(p)
		q.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}})
		tok := q.Token(t, "good")
		_, err := v.Verify(ctx, tok, nil)
		checkRefused(t, err, tok, "issued by")
	})
	t.Run("alg none", func(t *testing.T) {
		good := p.Token(t, "good")
		kid, _ := p.SigningKey()
		head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"` + kid + `"}`))
		tok := head + "." + strings.Split(good, ".")[1] + "."
		_, err := v.Verify(ctx, tok, nil)
		checkRefused(t, err, tok, "accepted algorithm")
	})
	t.Run("HS256 signed with the public key", func(t *testing.T) {
		kid, pub := p.SigningKey()
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		for _, secret := range [][]byte{der, pemKey} {
			sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", kid))
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			tok, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: p.Issuer, Subject: "mallory", Audience: jwt.Audience{audience},
				Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}).Serialize()
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.Verify(ctx, tok, nil)
			checkRefused(t, err, tok, "accepted algorithm")
		}
	})
	t.Run("forged signature", func(t *testing.T) {
		parts := strings.Split(p.Token(t, "good"), ".")
		other := strings.Split(p.Token(t, "other"), ".")
		tok := parts[0] + "." + other[1] + "." + parts[2] // good's signature on other's claims
		_, err := v.Verify(ctx, tok, nil)
		checkRefused(t, err, tok, "signature does not verify")
	})
}

// otherResources are audiences a token of the same issuer may carry that
// are not this server (audience, https://mcp.example/mcp): the audience
// is compared whole, so no prefix, sibling path, host or client id
// stands for it.
var otherResources = []struct{ name, aud string }{
	{"another resource on the same host", "https://mcp.example/admin"},
	{"a resource below this one", "https://mcp.example/mcp/admin"},
	{"the host, not the resource", "https://mcp.example"},
	{"this server's URL with a trailing slash", "https://mcp.example/mcp/"},
	{"a client id (an ID token's audience)", "agent"},
}

// addOtherResources adds a client "res-N" of p for each of otherResources.
func addOtherResources(p *oauthtest.Provider, opaque bool) {
	for i, r := range otherResources {
		p.AddClient(oauthtest.Client{ID: "res-" + strconv.Itoa(i), Secret: "s", Audience: []string{r.aud}, Opaque: opaque})
	}
}

// checkOtherResources asserts that v refuses a token of each of
// otherResources as not for this server.
func checkOtherResources(t *testing.T, p *oauthtest.Provider, v *oauth.Verifier) {
	t.Helper()
	for i, r := range otherResources {
		t.Run("token for another resource: "+r.name, func(t *testing.T) {
			tok := p.Token(t, "res-"+strconv.Itoa(i))
			_, err := v.Verify(context.Background(), tok, nil)
			checkRefused(t, err, tok, "not for this server")
		})
	}
}

func TestKeyRotation(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "good", Secret: "s1", Audience: []string{audience}})
	clk := &clock{t: time.Now()}
	count := &jwksCounter{}
	v := newVerifier(t, p, clk, count)
	ctx := context.Background()
	old := p.Token(t, "good")
	if _, err := v.Verify(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	oldKid := strings.TrimSpace(func() string { k, _ := p.SigningKey(); return k }())

	p.Rotate()
	fresh := p.Token(t, "good")
	// Within MinRefresh of the first fetch, an unknown key id does not
	// refetch: tokens with made-up key ids cannot make the server hammer
	// the issuer.
	for range 5 {
		_, err := v.Verify(ctx, fresh, nil)
		checkRefused(t, err, fresh, "not one of the issuer's keys")
	}
	if n := count.n.Load(); n != 1 {
		t.Fatalf("key set fetched %d times within MinRefresh, want 1", n)
	}
	clk.Add(oauth.DefaultMinRefresh)
	if _, err := v.Verify(ctx, fresh, nil); err != nil {
		t.Fatalf("the new key, after MinRefresh, without a restart: %v", err)
	}
	if _, err := v.Verify(ctx, old, nil); err != nil {
		t.Fatalf("the old key, still published: %v", err)
	}
	if n := count.n.Load(); n != 2 {
		t.Fatalf("key set fetched %d times, want 2", n)
	}

	p.RemoveKey(oldKid)
	clk.Add(oauth.DefaultKeysMaxAge)
	_, err := v.Verify(ctx, old, nil)
	checkRefused(t, err, old, "not one of the issuer's keys")
	if _, err := v.Verify(ctx, fresh, nil); err != nil {
		t.Fatalf("the new key after the old was removed: %v", err)
	}
}

func TestNewRefuses(t *testing.T) {
	p := oauthtest.Start(t)
	for _, c := range []struct {
		name     string
		cfg      oauth.Config
		wantText string
	}{
		{"http issuer beyond loopback", oauth.Config{Issuer: "http://idp.example", Audience: audience}, "must be https"},
		{"audience not a URL", oauth.Config{Issuer: p.Issuer, Audience: "mcp"}, "not an absolute URL"},
		{"issuer that is not the provider's", oauth.Config{Issuer: p.Issuer + "/", Audience: audience}, "names issuer"},
		{"no metadata", oauth.Config{Issuer: p.Issuer + "/nowhere", Audience: audience}, "publishes no metadata"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := oauth.New(context.Background(), &c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.wantText) {
				t.Fatalf("New: %v, want an error saying %q", err, c.wantText)
			}
		})
	}
}
