package fromcobra

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// InjectFunc performs a CLI's dynamic-parameter injection on a fresh tree:
// given the dynamic parameter's value (a playbook name) it adds the flags
// that value declares to the command that takes them — exactly as the CLI
// does before parsing when it runs — and returns the content fingerprint of
// what it injected (projector.ContentFingerprint of the resolved definition).
type InjectFunc func(root *cobra.Command, value string) (contentFingerprint string, err error)

// NewInjector returns a projector.Injector for the command at path: each call
// builds a fresh tree with fresh, injects value with inject, walks the tree
// with opts and returns the command at path.
//
// A fresh tree per call matters: injection adds flags, and a tree reused
// across calls would still carry the previous value's flags. NewInjector does
// not cache; caching, if any, belongs to the caller and must be keyed on the
// injected content. An error from inject is returned as a
// *projector.InjectionRefusedError, so a surface can show the CLI's own
// reason to the caller who named the value.
func NewInjector(fresh func() *cobra.Command, path []string, inject InjectFunc, opts *Options) projector.Injector {
	path = append([]string(nil), path...)
	return func(value string) (*projector.Command, string, error) {
		root := fresh()
		if root == nil {
			return nil, "", fmt.Errorf("fromcobra: injector for %q: the tree factory returned nil", strings.Join(path, " "))
		}
		fp, err := inject(root, value)
		if err != nil {
			return nil, "", &projector.InjectionRefusedError{Value: value, Path: path, Err: err}
		}
		if fp == "" {
			return nil, "", fmt.Errorf("fromcobra: injecting %q into %q: the inject function returned no content fingerprint", value, strings.Join(path, " "))
		}
		tree, err := Walk(root, opts)
		if err != nil {
			return nil, "", err
		}
		cmd := tree.Find(path...)
		if cmd == nil {
			return nil, "", fmt.Errorf("fromcobra: injector: no command %q in the tree", strings.Join(path, " "))
		}
		return cmd, fp, nil
	}
}
