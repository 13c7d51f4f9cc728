// Package oauth validates OAuth 2.1 access tokens for a resource server:
// JSON Web Tokens signed by an issuer's published keys, meant for this
// server, and, where configured, opaque tokens the issuer vouches for by
// introspection (RFC 7662). It also exchanges a caller's token for one
// meant for another service (RFC 8693, [Exchanger]). It knows nothing of
// MCP: [Verifier.Verify] has the shape of the go-sdk's
// auth.TokenVerifier, and [Verifier.Metadata] is the server's Protected
// Resource Metadata (RFC 9728), which package mcphttp serves.
//
// # Discovery
//
// [New] reads the issuer's metadata, OpenID Connect discovery
// (ISSUER/.well-known/openid-configuration) first, then RFC 8414
// (/.well-known/oauth-authorization-server/PATH); the document must name
// the configured issuer exactly and a jwks_uri. The issuer must be https,
// except on a loopback host. The key set is fetched then.
//
// # Validation
//
// [Verifier.Verify] accepts a token only when, in this order:
//
//  1. it is a compact JWS with one signature whose algorithm is in the
//     allowlist (RS256/384/512, PS256/384/512, ES256/384/512, EdDSA):
//     never "none", never an HMAC algorithm, so a token "signed" with a
//     public key as an HMAC secret is refused before any key is used;
//  2. its key id names a key of the issuer's set (an unknown id refetches
//     the set, at most once per [Config].MinRefresh; a set older than
//     [Config].KeysMaxAge is refetched before use, so a key the issuer
//     removed stops working within that age), and the key, if it states
//     an algorithm, states the token's;
//  3. the signature verifies with that key;
//  4. iss is the issuer; aud contains [Config].Audience (this server's
//     canonical URL); exp is present and not past, nbf and iat not in
//     the future, each with [Config].Leeway; sub is present.
//
// Every refusal wraps auth.ErrInvalidToken and says which rule failed;
// none repeats the token or any part of it. An error that means the token
// could not be checked (the issuer's keys or introspection endpoint out
// of reach) wraps [ErrUnavailable] instead: neither a pass nor a refusal.
//
// # Introspection
//
// With [Config].Introspection (this server's own client id and secret at
// the issuer), a token that is not in JWS form (three base64url parts, the
// first a JSON header naming an algorithm) is posted to the issuer's
// introspection_endpoint, read from its metadata, and accepted only when
// the answer, in this order:
//
//  1. says active;
//  2. gives no token_type, or a bearer access token's;
//  3. gives no iss, or the issuer;
//  4. has an aud containing [Config].Audience;
//  5. has an exp not past, and no nbf or iat in the future, each with
//     [Config].Leeway;
//  6. has a sub.
//
// The answer becomes the same TokenInfo a JWT would. A token in JWS form
// is judged by the rules of Validation only, never sent to the issuer: the
// local rules refuse a forged JWT without handing it to another parser,
// and the issuer does not see every token a caller makes up. The price is
// that a JWT the issuer revokes is accepted until its exp.
//
// Answers are kept for at most [Config].CacheTTL and never past the
// token's exp, keyed by the SHA-256 of the token (the token itself is not
// kept), at most [Config].CacheSize of them; refusals are not kept. At
// most a few introspection requests are in flight at once.
package oauth
