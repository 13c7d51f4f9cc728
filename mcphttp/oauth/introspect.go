package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultCacheTTL is the longest an introspection answer is reused when
// [Config].CacheTTL is zero: a token the issuer revokes stops working
// within it.
const DefaultCacheTTL = 30 * time.Second

// DefaultCacheSize is how many introspection answers are kept when
// [Config].CacheSize is zero.
const DefaultCacheSize = 1024

// maxIntrospections bounds the introspection requests in flight at once:
// callers presenting many made-up opaque tokens wait for each other rather
// than turning this server into a flood against the issuer.
const maxIntrospections = 4

// ErrUnavailable is wrapped by every error that means the issuer could
// not be asked (unreachable, or an answer other than the protocol's): the
// token was neither accepted nor refused. Package mcphttp answers it with
// 503.
var ErrUnavailable = errors.New("the issuer could not be asked")

// introspector asks the issuer's introspection endpoint about opaque
// tokens.
type introspector struct {
	cfg      *Config
	endpoint string
	cache    *cache[*auth.TokenInfo]
	slots    chan struct{}
}

func newIntrospector(c *Config, meta *issuerMetadata) (*introspector, error) {
	if c.Introspection.ClientID == "" || c.Introspection.Secret == "" {
		return nil, errors.New("oauth: introspection needs this server's client id and secret")
	}
	endpoint, err := meta.endpoint("introspection_endpoint", "opaque tokens are accepted by introspection (RFC 7662)")
	if err != nil {
		return nil, err
	}
	c.CacheTTL = orDefault(c.CacheTTL, DefaultCacheTTL)
	c.CacheSize = orDefault(c.CacheSize, DefaultCacheSize)
	return &introspector{cfg: c, endpoint: endpoint, cache: newCache[*auth.TokenInfo](c.CacheSize), slots: make(chan struct{}, maxIntrospections)}, nil
}

// looksLikeJWS reports whether token has the compact JWS form: three
// base64url parts, the first a JSON object naming an algorithm. Such a
// token is judged by the local rules only, never sent to introspection.
func looksLikeJWS(token string) bool {
	head, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var h struct {
		Alg *string `json:"alg"`
	}
	return json.Unmarshal(b, &h) == nil && h.Alg != nil
}

// introspection is the part of an RFC 7662 answer this package reads.
type introspection struct {
	Active    bool             `json:"active"`
	Scope     string           `json:"scope"`
	ClientID  string           `json:"client_id"`
	TokenType string           `json:"token_type"`
	Exp       *jwt.NumericDate `json:"exp"`
	Iat       *jwt.NumericDate `json:"iat"`
	Nbf       *jwt.NumericDate `json:"nbf"`
	Sub       string           `json:"sub"`
	Aud       jwt.Audience     `json:"aud"`
	Iss       string           `json:"iss"`
}

// verify judges an opaque token by the issuer's introspection answer,
// reused from the cache while it holds.
func (in *introspector) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	key := tokenKey(token)
	if info, ok := in.cache.get(key, in.cfg.Now()); ok {
		return cloneInfo(info), nil
	}
	select {
	case in.slots <- struct{}{}:
		defer func() { <-in.slots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: introspection: %w", ErrUnavailable, ctx.Err())
	}
	var raw json.RawMessage
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	if err := postForm(ctx, in.cfg.Client, in.endpoint, *in.cfg.Introspection, form, &raw); err != nil {
		return nil, fmt.Errorf("%w: introspection: %w", ErrUnavailable, err)
	}
	var r introspection
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: introspection: the answer is not an RFC 7662 object: %w", ErrUnavailable, err)
	}
	info, err := in.judge(&r)
	if err != nil {
		return nil, err
	}
	if len(in.cfg.Claims) > 0 {
		// The claims the operator names, from the same answer, read as a
		// JWT's are (RFC 7662 section 2.2 lets an issuer add any).
		var all map[string]any
		if err := json.Unmarshal(raw, &all); err != nil {
			return nil, fmt.Errorf("%w: introspection: the answer is not an RFC 7662 object: %w", ErrUnavailable, err)
		}
		info.Extra[ClaimsKey] = namedClaims(all, in.cfg.Claims)
	}
	now := in.cfg.Now()
	until := now.Add(in.cfg.CacheTTL)
	if info.Expiration.Before(until) {
		until = info.Expiration
	}
	in.cache.put(key, info, until, now)
	return cloneInfo(info), nil
}

// judge applies the rules of the package documentation to an answer.
func (in *introspector) judge(r *introspection) (*auth.TokenInfo, error) {
	c := in.cfg
	now := c.Now()
	switch {
	case !r.Active:
		return nil, invalid("the issuer says it is not active")
	case r.TokenType != "" && !isBearerType(r.TokenType):
		return nil, invalid("the issuer says it is a %q token, not a bearer access token", r.TokenType)
	case r.Iss != "" && r.Iss != c.Issuer:
		return nil, invalid("it was issued by %q, not by %q", r.Iss, c.Issuer)
	case !slices.Contains(r.Aud, c.Audience):
		return nil, invalid("it is for %q, not for this server (%s)", []string(r.Aud), c.Audience)
	case r.Exp == nil:
		return nil, invalid("the issuer gives it no expiration (exp)")
	case now.Add(-c.Leeway).After(r.Exp.Time()):
		return nil, invalid("it expired at %s", r.Exp.Time().UTC().Format(time.RFC3339))
	case r.Nbf != nil && now.Add(c.Leeway).Before(r.Nbf.Time()):
		return nil, invalid("it is not valid before %s", r.Nbf.Time().UTC().Format(time.RFC3339))
	case r.Iat != nil && now.Add(c.Leeway).Before(r.Iat.Time()):
		return nil, invalid("it was issued in the future (%s)", r.Iat.Time().UTC().Format(time.RFC3339))
	case r.Sub == "":
		return nil, invalid("the issuer gives it no subject (sub)")
	}
	return &auth.TokenInfo{
		Scopes:     strings.Fields(r.Scope),
		Expiration: r.Exp.Time(),
		UserID:     r.Sub,
		Extra:      map[string]any{"client_id": r.ClientID, "iss": c.Issuer},
	}, nil
}

// isBearerType reports whether an introspection's token_type names a
// bearer access token (RFC 6750's "Bearer", or RFC 8693's identifier).
// Anything else (a refresh token, a DPoP-bound token whose proof this
// server does not check) is refused.
func isBearerType(t string) bool {
	return strings.EqualFold(t, "bearer") || t == "access_token" || t == accessTokenType
}

// cloneInfo copies info, so a caller changing its answer cannot change
// the cache.
func cloneInfo(info *auth.TokenInfo) *auth.TokenInfo {
	c := *info
	c.Scopes = slices.Clone(info.Scopes)
	c.Extra = maps.Clone(info.Extra)
	if claims, ok := info.Extra[ClaimsKey].(map[string][]string); ok {
		cp := make(map[string][]string, len(claims))
		for k, v := range claims {
			cp[k] = slices.Clone(v)
		}
		c.Extra[ClaimsKey] = cp
	}
	return &c
}
