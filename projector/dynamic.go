package projector

// Injector performs a CLI's dynamic-parameter injection (a playbook name
// adding the playbook's declared args): given the dynamic parameter's value
// it returns the command as the CLI would parse it after injection, and a
// content fingerprint of what was injected.
//
// An Injector must work on a fresh parser each call (injection mutates a
// parser; a cached one would carry the previous playbook's parameters) and
// must resolve the value exactly as the CLI does when it runs, so that the
// schema discovered is the schema that runs. The content
// fingerprint is "pf1-" plus 16 hex digits ([ContentFingerprint] of the
// resolved definition's bytes): equal content, equal fingerprint; it is what
// the surface compares between discovery and execution. The returned
// command's schema, from [Project], carries the injected parameters, so its
// [Fingerprint] changes with them too.
//
// fromcobra.NewInjector builds one for a cobra CLI.
type Injector func(value string) (cmd *Command, contentFingerprint string, err error)
