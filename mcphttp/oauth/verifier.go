package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultLeeway is the clock skew allowed on exp, nbf and iat when
// [Config].Leeway is zero.
const DefaultLeeway = 30 * time.Second

// DefaultMinRefresh is the least time between two fetches of the key set
// prompted by unknown key ids when [Config].MinRefresh is zero: tokens
// with made-up key ids cannot make the server hammer the issuer.
const DefaultMinRefresh = 30 * time.Second

// DefaultKeysMaxAge is how long a fetched key set is used before it is
// fetched again when [Config].KeysMaxAge is zero.
const DefaultKeysMaxAge = 15 * time.Minute

// maxDocumentBytes bounds what is read of a metadata document or a key set.
const maxDocumentBytes = 1 << 20

// Algorithms are the signature algorithms accepted: asymmetric only.
var Algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Config configures a [Verifier].
type Config struct {
	// Issuer is the authorization server's issuer identifier, an https
	// URL (http on a loopback host).
	Issuer string
	// Audience is this server's canonical URL, the resource a token must
	// be issued for (its aud claim must contain it).
	Audience string
	// Scopes are the scopes this server knows, published in its metadata.
	Scopes []string
	// Claims names the token claims, beyond the registered ones, that
	// Verify keeps (groups, roles): each reaches the caller's identity
	// as a list of strings (see [ClaimsKey]); any other claim is dropped.
	Claims []string
	// Client fetches the issuer's documents; nil means a client with a
	// 10-second timeout.
	Client *http.Client
	// Leeway, MinRefresh and KeysMaxAge: zero means the Default of each.
	Leeway, MinRefresh, KeysMaxAge time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Introspection, when set, accepts opaque access tokens too: a token
	// that is not a JWT is sent to the issuer's introspection_endpoint
	// (RFC 7662) by this server's own client. See the package
	// documentation.
	Introspection *Credentials
	// CacheTTL is the longest an introspection answer is reused; zero
	// means DefaultCacheTTL. An answer is never reused past the token's
	// exp.
	CacheTTL time.Duration
	// CacheSize bounds the introspection answers kept; zero means
	// DefaultCacheSize.
	CacheSize int
}

// Credentials are this server's own client at the issuer, sent by HTTP
// Basic authentication (client_secret_basic) to the introspection and
// token endpoints. Its String method never shows the secret.
type Credentials struct {
	ClientID, Secret string
}

func (c Credentials) String() string {
	return "oauth.Credentials{ClientID: " + strconv.Quote(c.ClientID) + ", Secret: (hidden)}"
}

func (c Credentials) GoString() string { return c.String() }

// A Verifier validates access tokens of one issuer for one audience. It
// is safe for concurrent use.
type Verifier struct {
	cfg        Config
	jwksURI    string
	introspect *introspector // nil: JWTs only

	mu      sync.Mutex
	keys    jose.JSONWebKeySet
	fetched time.Time // when keys were fetched
	tried   time.Time // when a fetch was last attempted
}

// New reads the issuer's metadata and key set (see the package
// documentation) and returns a Verifier, or an error saying what is wrong
// with the configuration or the issuer.
func New(ctx context.Context, cfg *Config) (*Verifier, error) {
	c := *cfg
	if err := checkURL("issuer", c.Issuer); err != nil {
		return nil, err
	}
	if err := checkURL("audience", c.Audience); err != nil {
		return nil, err
	}
	c.Client, c.Now = clientOrDefault(c.Client), nowOrDefault(c.Now)
	c.Leeway = orDefault(c.Leeway, DefaultLeeway)
	c.MinRefresh = orDefault(c.MinRefresh, DefaultMinRefresh)
	c.KeysMaxAge = orDefault(c.KeysMaxAge, DefaultKeysMaxAge)
	v := &Verifier{cfg: c}
	meta, err := discover(ctx, c.Client, c.Issuer)
	if err != nil {
		return nil, err
	}
	if v.jwksURI, err = meta.endpoint("jwks_uri", "this server validates signed JWT access tokens"); err != nil {
		return nil, err
	}
	if c.Introspection != nil {
		if v.introspect, err = newIntrospector(&c, meta); err != nil {
			return nil, err
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.fetchKeys(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// fetchKeys replaces the key set; v.mu is held. Private keys and keys not
// for signing are dropped: a key set that publishes a private key is a
// mistake this server does not build on.
func (v *Verifier) fetchKeys(ctx context.Context) error {
	v.tried = v.cfg.Now()
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, v.cfg.Client, v.jwksURI, &set); err != nil {
		return err
	}
	var keep []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.IsPublic() && k.Valid() && (k.Use == "" || k.Use == "sig") {
			keep = append(keep, k)
		}
	}
	v.keys = jose.JSONWebKeySet{Keys: keep}
	v.fetched = v.tried
	return nil
}

// key returns the key for kid, refetching the set when it is older than
// KeysMaxAge, or when kid is unknown and no fetch was tried within
// MinRefresh.
func (v *Verifier) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.cfg.Now()
	if now.Sub(v.fetched) >= v.cfg.KeysMaxAge && now.Sub(v.tried) >= v.cfg.MinRefresh {
		if err := v.fetchKeys(ctx); err != nil {
			return nil, err
		}
	}
	find := func() *jose.JSONWebKey {
		if kid == "" {
			if len(v.keys.Keys) == 1 {
				return &v.keys.Keys[0]
			}
			return nil
		}
		if ks := v.keys.Key(kid); len(ks) == 1 {
			return &ks[0]
		}
		return nil
	}
	if k := find(); k != nil {
		return k, nil
	}
	if now.Sub(v.tried) >= v.cfg.MinRefresh {
		if err := v.fetchKeys(ctx); err != nil {
			return nil, err
		}
		if k := find(); k != nil {
			return k, nil
		}
	}
	if kid == "" {
		return nil, invalid("it names no key id and the issuer has %d keys", len(v.keys.Keys))
	}
	return nil, invalid("its key id %q is not one of the issuer's keys", kid)
}

// invalid is a refusal of a token: it wraps auth.ErrInvalidToken, so the
// answer is 401.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

// claims are the claims read beyond the registered ones.
type claims struct {
	Scope    string   `json:"scope"`     // RFC 9068: space-separated
	SCP      []string `json:"scp"`       // a common array form
	ClientID string   `json:"client_id"` // RFC 9068
}

// ClaimsKey is the key, in the Extra of the TokenInfo [Verifier.Verify]
// returns, of the named claims ([Config].Claims): a map[string][]string
// from claim name to its values. A claim given as a string is one value;
// as an array, its string elements; a claim of any other shape, or absent,
// has no values.
const ClaimsKey = "claims"

// Verify validates token by the rules of the package documentation and
// returns what it says: the scopes, the expiration, the subject as UserID
// (so a session cannot be taken over by another subject), and in Extra
// "client_id", "iss" and, when [Config].Claims names any, [ClaimsKey]. It has the shape of the go-sdk's
// auth.TokenVerifier; the request is not used.
func (v *Verifier) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if v.introspect != nil && !looksLikeJWS(token) {
		return v.introspect.verify(ctx, token)
	}
	tok, err := jwt.ParseSigned(token, Algorithms)
	if err != nil {
		return nil, invalid("not a JWT signed with an accepted algorithm (%s)", algList())
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("it has %d signatures, not one", len(tok.Headers))
	}
	h := tok.Headers[0]
	key, err := v.key(ctx, h.KeyID)
	if err != nil {
		if errors.Is(err, auth.ErrInvalidToken) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: its keys could not be read: %w", ErrUnavailable, err)
	}
	if key.Algorithm != "" && key.Algorithm != h.Algorithm {
		return nil, invalid("it is signed with %s but its key is for %s", h.Algorithm, key.Algorithm)
	}
	var std jwt.Claims
	var more claims
	var all map[string]any
	if err := tok.Claims(key.Key, &std, &more, &all); err != nil {
		return nil, invalid("its signature does not verify with the issuer's key %q", h.KeyID)
	}
	if std.Expiry == nil {
		return nil, invalid("it has no expiration (exp)")
	}
	if std.Subject == "" {
		return nil, invalid("it has no subject (sub)")
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: []string{v.cfg.Audience}, Time: v.cfg.Now()}, v.cfg.Leeway)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, invalid("it was issued by %q, not by %q", std.Issuer, v.cfg.Issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, invalid("it is for %q, not for this server (%s)", []string(std.Audience), v.cfg.Audience)
	case errors.Is(err, jwt.ErrExpired):
		return nil, invalid("it expired at %s", std.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return nil, invalid("it is not valid before %s", std.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, invalid("it was issued in the future (%s)", std.IssuedAt.Time().UTC().Format(time.RFC3339))
	default:
		return nil, invalid("%v", err)
	}
	scopes := more.SCP
	if more.Scope != "" {
		scopes = strings.Fields(more.Scope)
	}
	extra := map[string]any{"client_id": more.ClientID, "iss": std.Issuer}
	if len(v.cfg.Claims) > 0 {
		extra[ClaimsKey] = namedClaims(all, v.cfg.Claims)
	}
	return &auth.TokenInfo{
		Scopes:     scopes,
		Expiration: std.Expiry.Time(),
		UserID:     std.Subject,
		Extra:      extra,
	}, nil
}

// namedClaims are the values of the claims names from all: a string is
// one value, an array its string elements; anything else is no value.
func namedClaims(all map[string]any, names []string) map[string][]string {
	out := make(map[string][]string, len(names))
	for _, name := range names {
		switch c := all[name].(type) {
		case string:
			out[name] = []string{c}
		case []any:
			for _, e := range c {
				if s, ok := e.(string); ok {
					out[name] = append(out[name], s)
				}
			}
		}
	}
	return out
}

func algList() string {
	s := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// Metadata is this server's Protected Resource Metadata (RFC 9728): the
// audience as resource, the issuer as its one authorization server, the
// configured scopes, and bearer tokens in the header only.
func (v *Verifier) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               v.cfg.Audience,
		AuthorizationServers:   []string{v.cfg.Issuer},
		ScopesSupported:        v.cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
	}
}

// Leeway is the clock skew the verifier allows.
func (v *Verifier) Leeway() time.Duration { return v.cfg.Leeway }
