package oauth_test

import (
	"context"
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// New reads the issuer's metadata and keys before a server serves; an
// issuer that could be impersonated on the way (plain http beyond
// loopback) is refused before anything is fetched.
func ExampleNew() {
	_, err := oauth.New(context.Background(), &oauth.Config{
		Issuer:   "http://id.example/realms/team",
		Audience: "https://mcp.example/mcp",
	})
	fmt.Println(err)
	// Output:
	// oauth: issuer "http://id.example/realms/team" must be https (http is allowed on a loopback host only)
}

// An Exchanger needs this server's own client at the issuer; an exchanged
// token printed by mistake shows its expiry, never itself.
func ExampleNewExchanger() {
	_, err := oauth.NewExchanger(context.Background(), &oauth.ExchangeConfig{
		Issuer:      "https://id.example/realms/team",
		Credentials: oauth.Credentials{ClientID: "verbsurface"},
	})
	fmt.Println(err)
	tok := oauth.Token{AccessToken: "eyJhbGciOi...", Expiry: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)}
	fmt.Println(tok)
	fmt.Printf("%+v\n", oauth.Credentials{ClientID: "verbsurface", Secret: "s3cr3t"})
	// Output:
	// oauth: token exchange needs this server's client id and secret
	// oauth.Token{(hidden), expires 2026-12-03T13:00:00Z}
	// oauth.Credentials{ClientID: "verbsurface", Secret: (hidden)}
}
