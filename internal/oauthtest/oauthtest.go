// Package oauthtest runs a real OpenID Provider in a test: the endpoints,
// discovery, key set, client-credentials grant and JWT signing of
// github.com/zitadel/oidc/v3's op package, a certified OpenID Provider
// library, on an httptest server on loopback. Only the storage is this
// package's (on top of the library's example storage): clients whose
// tokens are JWTs with the audience, scopes, lifetime and clock the test
// gives, and signing keys a test can rotate and remove.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Client is a client of the provider, issued tokens by the
// client-credentials grant; its ID is the tokens' subject.
type Client struct {
	ID, Secret string
	// Audience is the tokens' aud.
	Audience []string
	// Lifetime is how long a token lives; zero means an hour, negative
	// issues tokens already expired.
	Lifetime time.Duration
	// Skew is the provider's clock skew for this client: iat and nbf are
	// now minus Skew, so a negative Skew issues tokens not yet valid.
	Skew time.Duration
	// Claims are more claims of its tokens (groups, roles).
	Claims map[string]any
}

// Provider is a running OpenID Provider.
type Provider struct {
	// Issuer is its issuer identifier (http://127.0.0.1:PORT).
	Issuer string
	store  *store
}

// Start starts a provider, stopped when t ends.
func Start(t testing.TB) *Provider {
	t.Helper()
	// The listener first, for the issuer's URL; the server starts only
	// once the provider is its handler, so no request can see it unset.
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	st := &store{
		Storage: storage.NewStorage(storage.NewUserStore(issuer)),
		clients: map[string]Client{},
	}
	st.Rotate()
	cfg := &op.Config{CryptoKey: [32]byte{1}, CodeMethodS256: true}
	p, err := op.NewOpenIDProvider(issuer, cfg, st, op.WithAllowInsecure())
	if err != nil {
		srv.Close()
		t.Fatalf("oauthtest: %v", err)
	}
	srv.Config.Handler = p
	srv.Start()
	t.Cleanup(srv.Close)
	return &Provider{Issuer: issuer, store: st}
}

// AddClient registers c.
func (p *Provider) AddClient(c Client) {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	p.store.clients[c.ID] = c
}

// Token asks the provider's token endpoint for an access token by the
// client-credentials grant.
func (p *Provider) Token(t testing.TB, clientID string, scopes ...string) string {
	t.Helper()
	p.store.mu.Lock()
	c := p.store.clients[clientID]
	p.store.mu.Unlock()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ID}, "client_secret": {c.Secret}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	resp, err := http.PostForm(p.Issuer+"/oauth/token", form)
	if err != nil {
		t.Fatalf("oauthtest: token: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.AccessToken == "" {
		t.Fatalf("oauthtest: token for %s: %s %v %s", clientID, resp.Status, err, body.Error)
	}
	return body.AccessToken
}

// Rotate makes a new RS256 key the signing key, keeping the others
// published, and returns its id.
func (p *Provider) Rotate() string { return p.store.Rotate() }

// RemoveKey stops publishing the key kid.
func (p *Provider) RemoveKey(kid string) {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	for i, k := range p.store.keys {
		if k.id == kid {
			p.store.keys = append(p.store.keys[:i], p.store.keys[i+1:]...)
			return
		}
	}
}

// ShareKeys makes p sign with, and publish, the keys of other: the same
// keys at two issuers, so a test can reach the issuer check past the
// signature.
func (p *Provider) ShareKeys(other *Provider) {
	other.store.mu.Lock()
	keys := append([]*key(nil), other.store.keys...)
	other.store.mu.Unlock()
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	p.store.keys = keys
}

// SigningKey is the current signing key's id and public key.
func (p *Provider) SigningKey() (kid string, pub *rsa.PublicKey) {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	k := p.store.keys[len(p.store.keys)-1]
	return k.id, &k.key.PublicKey
}

// store is the example storage with this package's clients and keys.
type store struct {
	*storage.Storage
	mu      sync.Mutex
	clients map[string]Client
	keys    []*key // the last signs
	n       int
}

type key struct {
	id  string
	key *rsa.PrivateKey
}

func (k *key) ID() string                                  { return k.id }
func (k *key) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *key) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k *key) Use() string                                 { return "sig" }

type signing struct{ *key }

func (s signing) Key() any { return s.key.key }

type public struct{ *key }

func (p public) Key() any { return &p.key.key.PublicKey }

func (s *store) Rotate() string {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	id := fmt.Sprintf("key-%d", s.n)
	s.keys = append(s.keys, &key{id: id, key: k})
	return id
}

func (s *store) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return signing{s.keys[len(s.keys)-1]}, nil
}

func (s *store) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *store) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		ks[i] = public{k}
	}
	return ks, nil
}

func (s *store) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.Secret != secret {
		return nil, errors.New("wrong client id or secret")
	}
	return &jwtClient{Client: storage.WebClient(id, secret), c: c}, nil
}

func (s *store) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[id]
	return &oidc.JWTTokenRequest{Subject: c.ID, Audience: c.Audience, Scopes: scopes}, nil
}

func (s *store) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	life := s.clients[req.GetSubject()].Lifetime
	if life == 0 {
		life = time.Hour
	}
	s.n++
	return fmt.Sprintf("token-%d", s.n), time.Now().Add(life), nil
}

// GetPrivateClaimsFromScopes puts the granted scopes in the token's scope
// claim (RFC 9068), and the client's Claims beside it.
func (s *store) GetPrivateClaimsFromScopes(_ context.Context, _, clientID string, scopes []string) (map[string]any, error) {
	s.mu.Lock()
	more := s.clients[clientID].Claims
	s.mu.Unlock()
	out := make(map[string]any, len(more)+1)
	for k, v := range more {
		out[k] = v
	}
	if len(scopes) > 0 {
		out["scope"] = strings.Join(scopes, " ")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// jwtClient is a client-credentials client issued JWT access tokens.
type jwtClient struct {
	op.Client
	c Client
}

func (j *jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (j *jwtClient) ClockSkew() time.Duration            { return j.c.Skew }
func (j *jwtClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}
func (j *jwtClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
