package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DefaultExchangeMargin is how long before its expiry an exchanged token
// stops being reused when [ExchangeConfig].Margin is zero: a run handed
// the token has that long to use it.
const DefaultExchangeMargin = time.Minute

// DefaultExchangeCacheSize is how many exchanged tokens are kept when
// [ExchangeConfig].CacheSize is zero.
const DefaultExchangeCacheSize = 256

const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	accessTokenType    = "urn:ietf:params:oauth:token-type:access_token"
)

// ExchangeConfig configures an [Exchanger].
type ExchangeConfig struct {
	// Issuer is the authorization server's issuer identifier, as in
	// [Config]; its token_endpoint is read from its metadata.
	Issuer string
	// Credentials are this server's own client at the issuer; the issuer
	// must permit it to exchange tokens for the audiences asked.
	Credentials Credentials
	// Scopes, when set, are asked for the exchanged token.
	Scopes []string
	// Client makes the requests; nil means a client with a 10-second
	// timeout.
	Client *http.Client
	// Margin: an exchanged token is reused until Margin before it
	// expires; zero means DefaultExchangeMargin.
	Margin time.Duration
	// CacheSize bounds the exchanged tokens kept; zero means
	// DefaultExchangeCacheSize.
	CacheSize int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// An Exchanger trades a caller's access token for one whose audience is
// another service (RFC 8693 token exchange), so a program run for the
// caller reaches its backend as the caller. It is safe for concurrent
// use.
//
// Exchanged tokens are kept, keyed by a SHA-256 of the subject token and
// the audience (never the subject token itself), until Margin before they
// expire, at most CacheSize of them. A token the issuer gives no lifetime
// is not kept. The Exchanger logs nothing, and no error it returns holds
// the subject token or an exchanged token.
type Exchanger struct {
	cfg      ExchangeConfig
	endpoint string
	cache    *cache[Token]
}

// A Token is an exchanged access token. Its String method never shows
// the token, so printing one by mistake does not leak it.
type Token struct {
	// AccessToken is the token itself: hand it to the program that needs
	// it, never to a log.
	AccessToken string
	// Expiry is when it expires; zero if the issuer did not say.
	Expiry time.Time
	// Scopes are the scopes the issuer says it grants, if it says.
	Scopes []string
}

func (t Token) String() string {
	if t.Expiry.IsZero() {
		return "oauth.Token{(hidden)}"
	}
	return "oauth.Token{(hidden), expires " + t.Expiry.UTC().Format(time.RFC3339) + "}"
}

func (t Token) GoString() string { return t.String() }

// NewExchanger reads the issuer's metadata for its token_endpoint and
// returns an Exchanger, or an error saying what is wrong with the
// configuration or the issuer. Nothing is exchanged yet: whether the
// issuer permits the exchange shows at the first [Exchanger.Exchange].
func NewExchanger(ctx context.Context, cfg *ExchangeConfig) (*Exchanger, error) {
	c := *cfg
	if err := checkURL("issuer", c.Issuer); err != nil {
		return nil, err
	}
	if c.Credentials.ClientID == "" || c.Credentials.Secret == "" {
		return nil, errors.New("oauth: token exchange needs this server's client id and secret")
	}
	c.Client, c.Now = clientOrDefault(c.Client), nowOrDefault(c.Now)
	c.Margin = orDefault(c.Margin, DefaultExchangeMargin)
	c.CacheSize = orDefault(c.CacheSize, DefaultExchangeCacheSize)
	meta, err := discover(ctx, c.Client, c.Issuer)
	if err != nil {
		return nil, err
	}
	endpoint, err := meta.endpoint("token_endpoint", "token exchange (RFC 8693) posts to it")
	if err != nil {
		return nil, err
	}
	return &Exchanger{cfg: c, endpoint: endpoint, cache: newCache[Token](c.CacheSize)}, nil
}

// ExchangeError is the issuer's refusal of an exchange: the HTTP status,
// and its error code and description (RFC 6749 section 5.2; RFC 8693 adds
// invalid_target for an audience the client may not obtain). An issuer
// that cannot be reached, or answers with a server error, gives an error
// wrapping [ErrUnavailable] instead.
type ExchangeError struct {
	Status            int
	Code, Description string
}

func (e *ExchangeError) Error() string {
	s := fmt.Sprintf("oauth: the issuer refused the token exchange (HTTP %d", e.Status)
	if e.Code != "" {
		s += ", " + e.Code
	}
	s += ")"
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// Exchange returns an access token for audience standing for the
// subject of subjectToken (an access token the caller presented, already
// verified), from the cache while one is kept, else from the issuer's
// token endpoint by the token-exchange grant, authenticated as this
// server's client. It refuses an answer that is not a bearer access
// token.
func (e *Exchanger) Exchange(ctx context.Context, subjectToken, audience string) (Token, error) {
	if subjectToken == "" || audience == "" {
		return Token{}, errors.New("oauth: token exchange needs a subject token and an audience")
	}
	key := tokenKey(subjectToken, audience)
	if t, ok := e.cache.get(key, e.cfg.Now()); ok {
		t.Scopes = slices.Clone(t.Scopes) // the caller's to change
		return t, nil
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"subject_token":        {subjectToken},
		"subject_token_type":   {accessTokenType},
		"requested_token_type": {accessTokenType},
		"audience":             {audience},
	}
	if len(e.cfg.Scopes) > 0 {
		form.Set("scope", strings.Join(e.cfg.Scopes, " "))
	}
	var r struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		TokenType       string `json:"token_type"`
		ExpiresIn       int64  `json:"expires_in"`
		Scope           string `json:"scope"`
	}
	err := postForm(ctx, e.cfg.Client, e.endpoint, e.cfg.Credentials, form, &r)
	var se *statusError
	switch {
	case errors.As(err, &se) && se.code >= 400 && se.code < 500:
		// The description is the issuer's; it is dropped if it repeats
		// the subject token.
		desc := se.body.Description
		if strings.Contains(desc, subjectToken) || len(desc) > 300 {
			desc = ""
		}
		return Token{}, &ExchangeError{Status: se.code, Code: se.body.Error, Description: desc}
	case err != nil:
		return Token{}, fmt.Errorf("%w: token exchange: %w", ErrUnavailable, err)
	case r.AccessToken == "":
		return Token{}, fmt.Errorf("oauth: token exchange at %s: the answer has no access_token", e.endpoint)
	case r.IssuedTokenType != "" && r.IssuedTokenType != accessTokenType:
		return Token{}, fmt.Errorf("oauth: token exchange at %s: the issuer issued a %q, not an access token", e.endpoint, r.IssuedTokenType)
	case !strings.EqualFold(r.TokenType, "bearer"):
		return Token{}, fmt.Errorf("oauth: token exchange at %s: the token's type is %q, not Bearer", e.endpoint, r.TokenType)
	}
	now := e.cfg.Now()
	t := Token{AccessToken: r.AccessToken, Scopes: strings.Fields(r.Scope)}
	if r.ExpiresIn > 0 {
		t.Expiry = now.Add(time.Duration(r.ExpiresIn) * time.Second)
		e.cache.put(key, t, t.Expiry.Add(-e.cfg.Margin), now)
	}
	return t, nil
}
