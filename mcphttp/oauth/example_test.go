package oauth_test

import (
	"context"
	"fmt"

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
