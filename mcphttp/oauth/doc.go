// Package oauth validates OAuth 2.1 access tokens for a resource server:
// JSON Web Tokens signed by an issuer's published keys, meant for this
// server. It knows nothing of MCP: [Verifier.Verify] has the shape of the
// go-sdk's auth.TokenVerifier, and [Verifier.Metadata] is the server's
// Protected Resource Metadata (RFC 9728), which package mcphttp serves.
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
// none repeats the token or any part of it. Opaque tokens (RFC 7662
// introspection) are not accepted.
package oauth
