//go:build unix

package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/verbsurface"
)

// IdentityConfig is the configuration's identity section: what of an
// OAuth caller's verified identity reaches the program's runs, and
// nothing else (verbsurface.RunIdentity): Env maps a variable to a field
// (subject, client_id or a claim oauth.claims names), Args are
// "--option={field}" words, and Pattern is what every value must match
// (verbsurface.DefaultIdentityPattern when empty). A caller without a
// verified identity (stdio, the static token) gets none of it.
type IdentityConfig struct {
	Env     map[string]string `yaml:"env"`
	Args    []string          `yaml:"args"`
	Pattern string            `yaml:"pattern"`
}

// identityOptions sets, from the configuration, what the surface does with
// a caller's identity: the class scopes, the identity of runs. Every claim
// they name must be one oauth.claims keeps, since any other never reaches
// the server.
func (c *Config) identityOptions(sopts *verbsurface.Options) error {
	bad := func(key, field, format string, a ...any) error {
		return &ConfigError{File: c.file, Line: c.lineOf(key), Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	var claims []string
	if c.OAuth != nil {
		claims = c.OAuth.Claims
		for class, scopes := range c.OAuth.ClassScopes {
			switch verbsurface.Class(class) {
			case verbsurface.ClassSpawn, verbsurface.ClassObserve, verbsurface.ClassControl:
			default:
				return bad("oauth", "oauth.class_scopes."+class, "%q is not a class (spawn, observe or control)", class)
			}
			if len(scopes) == 0 || slices.Contains(scopes, "") {
				return bad("oauth", "oauth.class_scopes."+class, "list the scopes a token must grant to run a %s verb", class)
			}
			if sopts.ClassScopes == nil {
				sopts.ClassScopes = map[verbsurface.Class][]string{}
			}
			sopts.ClassScopes[verbsurface.Class(class)] = scopes
		}
	}
	if c.Identity == nil {
		return nil
	}
	ri := &verbsurface.RunIdentity{Env: c.Identity.Env, Args: c.Identity.Args}
	if c.Identity.Pattern != "" {
		re, err := regexp.Compile(c.Identity.Pattern)
		if err != nil {
			return bad("identity", "identity.pattern", "%v", err)
		}
		ri.Pattern = re
	}
	for _, f := range ri.Fields() {
		if f != verbsurface.FieldSubject && f != verbsurface.FieldClientID && !slices.Contains(claims, f) {
			return bad("identity", "identity", "%q is not subject, client_id or a claim oauth.claims names (%s)", f, strings.Join(claims, ", "))
		}
	}
	sopts.Identity = ri
	return nil
}

// checkPolicyClaims refuses a policy whose rules test a claim that
// oauth.claims does not keep: such a rule would never hold.
func (c *Config) checkPolicyClaims(claims []string) error {
	var kept []string
	if c.OAuth != nil {
		kept = c.OAuth.Claims
	}
	for _, name := range claims {
		if !slices.Contains(kept, name) {
			return &ConfigError{File: c.file, Line: c.lineOf("policy"), Field: "policy", Msg: fmt.Sprintf(
				"policy %s: a rule tests the claim %q, which oauth.claims does not name: tokens' %s would never reach it; add it to oauth.claims", c.Policy, name, name)}
		}
	}
	return nil
}
