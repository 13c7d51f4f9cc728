// Package oauthtest runs a real OpenID Provider in a test: the endpoints,
// discovery, key set, client-credentials grant, JWT signing, opaque
// tokens, introspection (RFC 7662) and token exchange (RFC 8693) of
// github.com/zitadel/oidc/v3's op package, a certified OpenID Provider
// library, on an httptest server on loopback. Only the storage is this
// package's (on top of the library's example storage): clients whose
// tokens are JWTs or opaque with the audience, scopes, lifetime and clock
// the test gives, which tokens each client may obtain by exchange, and
// signing keys a test can rotate and remove.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// Opaque issues opaque access tokens (the library's encrypted token
	// id and subject) instead of JWTs: only introspection tells what they
	// say.
	Opaque bool
	// ExchangeTo are the audiences this client may obtain by token
	// exchange for a token of this provider it presents as subject_token
	// (the exchanged token keeps that token's subject). Any other
	// audience, or none, is refused with invalid_target.
	ExchangeTo []string
}

// Provider is a running OpenID Provider.
type Provider struct {
	// Issuer is its issuer identifier (http://127.0.0.1:PORT).
	Issuer string
	store  *store
	srv    *httptest.Server
	broken atomic.Bool
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
		issuer:  issuer,
		clients: map[string]Client{},
		tokens:  map[string]issued{},
	}
	st.Rotate()
	// A key of its own, so one provider cannot read another's opaque
	// tokens.
	cfg := &op.Config{CodeMethodS256: true}
	if _, err := rand.Read(cfg.CryptoKey[:]); err != nil {
		t.Fatal(err)
	}
	o, err := op.NewOpenIDProvider(issuer, cfg, st, op.WithAllowInsecure())
	if err != nil {
		srv.Close()
		t.Fatalf("oauthtest: %v", err)
	}
	p := &Provider{Issuer: issuer, store: st, srv: srv}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.broken.Load() && r.URL.Path == IntrospectionPath {
			http.Error(w, "introspection is broken", http.StatusInternalServerError)
			return
		}
		o.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// IntrospectionPath is the path of the provider's introspection endpoint.
const IntrospectionPath = "/oauth/introspect"

// Close stops the provider: every endpoint refuses connections.
func (p *Provider) Close() { p.srv.Close() }

// BreakIntrospection makes the introspection endpoint answer 500 (or
// work again).
func (p *Provider) BreakIntrospection(broken bool) { p.broken.Store(broken) }

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

// store is the example storage with this package's clients, tokens and
// keys.
type store struct {
	*storage.Storage
	issuer  string
	mu      sync.Mutex
	clients map[string]Client
	tokens  map[string]issued // by token id
	keys    []*key            // the last signs
	n       int
}

// issued is what the provider remembers of a token it issued, for
// introspection and exchange.
type issued struct {
	subject, clientID string
	audience, scopes  []string
	iat, nbf, exp     time.Time
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

// AuthorizeClientIDSecret authenticates this package's clients at the
// introspection and token endpoints (the example storage knows only its
// own).
func (s *store) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	_, err := s.ClientCredentials(ctx, id, secret)
	return err
}

func (s *store) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, errors.New("client not found")
	}
	return &jwtClient{Client: storage.WebClient(id, c.Secret), c: c}, nil
}

// SetIntrospectionFromToken answers for any token this provider issued
// and has not expired, to any authenticated client, with its audience:
// as Keycloak does, the resource server, not the provider, checks that
// the token is meant for it.
func (s *store) SetIntrospectionFromToken(_ context.Context, r *oidc.IntrospectionResponse, tokenID, _, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenID]
	if !ok {
		return errors.New("unknown token")
	}
	if time.Now().After(t.exp) {
		return errors.New("token expired")
	}
	r.Subject, r.ClientID, r.Scope, r.Audience = t.subject, t.clientID, t.scopes, t.audience
	r.Issuer, r.TokenType, r.JWTID = s.issuer, oidc.BearerToken, tokenID
	if more := s.clients[t.clientID].Claims; len(more) > 0 {
		r.Claims = maps.Clone(more) // as the client's JWTs carry them
	}
	r.IssuedAt, r.NotBefore, r.Expiration = oidc.FromTime(t.iat), oidc.FromTime(t.nbf), oidc.FromTime(t.exp)
	return nil
}

// ValidateTokenExchangeRequest admits an exchange of an access token of
// this provider, not expired, for an access token of one or more of the
// audiences the client may obtain (Client.ExchangeTo).
func (s *store) ValidateTokenExchangeRequest(_ context.Context, req op.TokenExchangeRequest) error {
	if req.GetRequestedTokenType() == "" {
		req.SetRequestedTokenType(oidc.AccessTokenType)
	}
	if req.GetRequestedTokenType() != oidc.AccessTokenType || req.GetExchangeSubjectTokenType() != oidc.AccessTokenType {
		return oidc.ErrInvalidRequest().WithDescription("only access tokens are exchanged, for access tokens")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[req.GetExchangeSubjectTokenIDOrToken()]; !ok || time.Now().After(t.exp) {
		return oidc.ErrInvalidGrant().WithDescription("subject_token is not active")
	}
	c := s.clients[req.GetClientID()]
	if len(req.GetAudience()) == 0 {
		return oidc.ErrInvalidTarget().WithDescription("no audience asked for")
	}
	for _, aud := range req.GetAudience() {
		if !slices.Contains(c.ExchangeTo, aud) {
			return oidc.ErrInvalidTarget().WithDescription("client %s may not obtain tokens for %s", c.ID, aud)
		}
	}
	return nil
}

// GetPrivateClaimsFromTokenExchangeRequest puts the scopes and the
// acting client (RFC 8693 section 4.1) in an exchanged token.
func (s *store) GetPrivateClaimsFromTokenExchangeRequest(_ context.Context, req op.TokenExchangeRequest) (map[string]any, error) {
	claims := map[string]any{"act": map[string]any{"sub": req.GetClientID()}}
	if len(req.GetScopes()) > 0 {
		claims["scope"] = strings.Join(req.GetScopes(), " ")
	}
	return claims, nil
}

func (s *store) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[id]
	return &oidc.JWTTokenRequest{Subject: c.ID, Audience: c.Audience, Scopes: scopes}, nil
}

// CreateAccessToken records a token: the client it is issued to is its
// subject for the client-credentials grant, the exchanging client for an
// exchange (whose Lifetime and Skew then apply).
func (s *store) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clientID := req.GetSubject()
	if te, ok := req.(op.TokenExchangeRequest); ok {
		clientID = te.GetClientID()
	}
	c := s.clients[clientID]
	life := c.Lifetime
	if life == 0 {
		life = time.Hour
	}
	s.n++
	id := fmt.Sprintf("token-%d", s.n)
	now := time.Now()
	s.tokens[id] = issued{
		subject: req.GetSubject(), clientID: clientID,
		audience: req.GetAudience(), scopes: req.GetScopes(),
		iat: now.Add(-c.Skew), nbf: now.Add(-c.Skew), exp: now.Add(life),
	}
	return id, now.Add(life), nil
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

func (j *jwtClient) AccessTokenType() op.AccessTokenType {
	if j.c.Opaque {
		return op.AccessTokenTypeBearer
	}
	return op.AccessTokenTypeJWT
}
func (j *jwtClient) ClockSkew() time.Duration { return j.c.Skew }
func (j *jwtClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials, oidc.GrantTypeTokenExchange}
}
func (j *jwtClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
