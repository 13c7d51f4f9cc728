// Package verbsurface exposes a whole command-line program to agents as one
// MCP tool, "request", whose argument schemas are projected live from the
// CLI's own parser (package projector), validated closed, and executed
// through a small [Runner] (package dispatch's Runner satisfies it).
//
// A request is an envelope:
//
//	{"ops":  [{"op": VERB, "args": {...}, "fingerprint": FP, "playbook_fingerprint": PF}],
//	 "help": true | "VERB" | {"verb": VERB, DYNAMIC_PARAM: VALUE}}
//
// At least one of ops and help is present; the envelope is closed at every
// level. The response is {"status": "success"|"partial"|"error", "results":
// [...], "help": ...}: one result per op, in order, each {ok, op, class,
// result} or {ok: false, op, class, error}. The status counts each op and
// the help as one part: "success" when every part succeeded, "partial" when
// at least one succeeded and at least one failed, "error" when none
// succeeded. A malformed envelope or an over-long batch is {"status":
// "error", "error": {...}}; nothing runs. The MCP result has isError set
// exactly when the status is "error". It is never a protocol error.
//
// # Embedding
//
// A program that embeds the surface builds a [Registry] (the allowlist),
// a [Surface] over it, and registers the one tool with [AddRequestTool]:
//
//	func main() {
//		root := cli.NewRootCommand() // the CLI's own cobra tree
//		tree, err := fromcobra.Walk(root, &fromcobra.Options{ExcludeFlags: []string{"json"}})
//		if err != nil {
//			log.Fatal(err)
//		}
//		runner, err := dispatch.NewRunner("limcp", nil)
//		if err != nil {
//			log.Fatal(err)
//		}
//		reg, _ := verbsurface.NewRegistry(nil) // nil: the default fence; cannot fail
//		for _, v := range []verbsurface.Verb{
//			{Name: "agent.submit", Class: verbsurface.ClassSpawn, Path: []string{"agent"}, Synonyms: []string{"submit_agent"},
//				Summary: "start one agent run in the background", Prepare: dispatch.PromptSnapshots{}.Prepare},
//			{Name: "job.status", Class: verbsurface.ClassObserve, Path: []string{"job", "status"}, Summary: "show one job's status"},
//		} {
//			if err := reg.Register(v); err != nil {
//				log.Fatal(err)
//			}
//		}
//		surface, err := verbsurface.New(reg, &verbsurface.Options{
//			Source: verbsurface.StaticTree(tree), Runner: runner, Machine: verbsurface.Machine{Args: []string{"--json"}}}) // or ExecutableTree: see Example_embedding
//		if err != nil {
//			log.Fatal(err)
//		}
//		server := mcp.NewServer(&mcp.Implementation{Name: "limcp", Version: "v1"}, nil)
//		verbsurface.AddRequestTool(server, surface)
//		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
//			log.Fatal(err) // Run returns nil when the client disconnects normally
//		}
//	}
//
// # Verbs, the allowlist and the fence
//
// Nothing is reachable unless registered. A [Verb] names its class (spawn,
// observe, control), the command path it runs or mirrors, a summary, and
// optionally v1 synonyms, a [Handler] (Go logic such as job.wait that runs
// instead of the command, while the schema is still projected from the
// command it mirrors), a [Preparer] (run after validation and before
// rendering, as dispatch.PromptSnapshots is) and a [Dynamic] parameter.
// [WaitHandler] and [KillHandler] (Unix) are ready-made handlers for
// job.wait and job.kill over packages wait and kill and the CLI's own
// observe, status and kill commands: what limcp's server and `verbsurface
// serve`'s wait: and kill: keys register.
//
// Fenced command paths ([DefaultFence]: state migrate, plugin trust, hooks
// trust; configurable per CLI in [RegistryOptions]) grant privilege only a
// human at a terminal may grant. Registration refuses any verb whose path,
// name or synonym denotes one, and an op or help naming one, however
// spelled, gets not_allowed. Names are folded before the fence compares
// them: case, surrounding and inner whitespace, invisible and combining
// characters, fullwidth and mathematical forms, Cyrillic and Greek
// look-alikes, and every dot, slash, hyphen, underscore or colon variant; a
// name one edit or transposition away from a fenced path is fenced too.
// Registered verbs and synonyms themselves match exactly. A verb whose path
// reaches a fenced command through an alias the registry could not know is
// fenced when the live tree resolves it.
//
// The boundary is the allowlist: only a registered verb runs. On a request
// the fold keeps out nothing the allowlist lets in; for a name that is not
// registered it chooses between two refusals, not_allowed (it denotes a
// fenced command) and unknown_verb.
//
// # Discovery
//
// help: true returns the [Catalog]: one line per available verb, such as
// "agent.submit(model, prompt|prompt_file, +9) — start one agent run in the
// background" (required parameters, required groups as a|b, the count of
// optional ones, the summary clipped to 60 characters), and the verbs that
// cannot be offered with the reason and parameter: an unrepresentable
// parameter, or no machine-result seam (the command does not accept
// the option of Options.Machine, so it cannot print the one JSON result the surface
// reads; a flag the walker excluded counts as accepted, see
// projector.Command.Excluded). Synonyms and fenced
// commands never appear. help: "VERB" returns a [VerbHelp]: verb, class,
// summary, the full projected schema and its schema_fingerprint. The one
// string help: "true" ([HelpCatalogString], what older clients such as
// early MCP Inspector forms send for the boolean) is read as help: true;
// no verb may be named "true", so it cannot mean a verb.
//
// Schemas are live: the [TreeSource] is asked once per request, and
// projections are cached keyed on the canonical content of the command they
// came from, so a changed CLI changes the schema on the next request. For
// an external CLI, [CacheByFile] keys the tree on the executable's path,
// size, modification time and inode.
//
// A source may list commands before it reads them: a reader of a large
// program lists every command at start (path and summary) and marks it
// [projector.Command].Unread until its parameters are read. Such a verb is
// pending: the catalog, a listing and a search show it as "VERB(…)" with
// its summary (their next says once what that means), [Surface.Check]
// and [Surface.FileParams] leave it out, and [Surface.PolicyVerbs] lists
// it Unread. It is never projected: with no parameters it would be
// offered (and run) with none. [Options.Read] reads it: the surface calls
// Read with the command paths a request projects fully (each op's verb, a
// help's verb) before it takes the request's tree, so help: "VERB" or an
// op reads the verb first and answers with its real schema. A verb still
// Unread after Read (its error, or no Read at all) is unavailable_verb,
// with the reason and the help call that tries again; nothing runs.
//
// # Validation
//
// Before anything runs, args are validated against the verb's schema by
// [Validator], which interprets exactly the keyword subset projector emits
// and reports every problem in a deterministic order, each
// with the parameter and a reason: unknown parameter (the exact name
// given), missing required, wrong type, not in the choices, a forbidden
// value, too short, pattern, minimum, maximum, array bounds (an array over
// maxItems is refused on its length alone, its items unexamined), duplicate
// items (uniqueItems: one problem naming the first equal pair), mutually
// exclusive pair, required group. There is no extra_args or any other
// opaque argv channel. Its accept/reject decisions agree with jsonschema-go
// on the same schema (a differential test holds it to that).
//
// # Fingerprints
//
// Every spawn op must carry "fingerprint" equal to the verb's current
// schema_fingerprint ("sf1-" and 16 hex digits of SHA-256 over
// the canonical JSON of the verb and its schema); missing is
// missing_fingerprint, different is stale_fingerprint. Observe and control
// verbs, job.kill included, are exempt: their argument surfaces are small,
// and gating an emergency stop behind a discovery round trip costs
// something real.
//
// The fingerprint proves the schema the caller validated against is the
// schema that runs: staleness is impossible. It does not prove the caller
// read it: it is a transferable string.
//
// # Dynamic parameters
//
// A verb with a [Dynamic] parameter (play.submit's playbook) shows its base
// schema in help, with a note that the value adds parameters. help:
// {"verb": V, "playbook": NAME} performs the CLI's own injection and
// returns the injected schema, its schema_fingerprint and
// playbook_fingerprint (the content fingerprint, "pf1-..."). An op naming a
// value is injected again and validated as the playbook is then; its
// fingerprint must be the injected schema's. The caller passes the
// playbook_fingerprint it discovered as the op's "playbook_fingerprint";
// when the content executed differs, the op result says so:
// "playbook_changed": {"discovered": ..., "executed": ...}. Every result of
// a dynamic op carries the "playbook_fingerprint" it ran with.
//
// # Execution
//
// Each op passes these gates in order, and the first that fails is its
// error: resolve the name (verb, synonym, fence, unknown); project
// (unavailable, fenced alias, internal); inject the dynamic value;
// validate; the stored-command guard (see "Stored commands");
// confinement of path arguments to the roots (see "Files and roots"); the
// [Policy] (with validated args, path arguments as real paths; [ReadOnly]
// admits only observe verbs); the [Decider] (see "Confirmation"); the
// fingerprint (spawn only); the spawn rate; the preparer; then the
// handler, or the rendered command "PATH... MACHINE_ARGS FIXED_ARGS
// OPTIONS... -- POSITIONALS..." through the verb's Runner
// ([Verb.Runner], else Options.Runner; both under the same MaxInFlight
// slots). Ops run in order; one failing does not stop the others. Batches
// hold 1..MaxOps ops ([DefaultMaxOps] is 16).
//
// A verb may run the program's root command (an empty [Verb.Path]: a
// single-command program such as a linter is one verb), use its own
// machine mode ([Verb.Machine], for a CLI whose commands differ), fix
// arguments no caller sees ([Verb.Args], rendered after the path and
// withdrawn from the schema with every option they set) and exclude
// parameters of its command ([Verb.Exclude], which may settle a conflict
// that lies only in the parameters: two storing to one destination). What
// no parser states, a verb says: constraints on the values a caller gives
// ([Verb.Constraints]: a pattern, an enum, no leading dash, for a value the
// program hands on to another program), values fixed by name, positionals
// included ([Verb.Fixed], withdrawn from the schema and rendered with the
// caller's), and the command's positionals ([Verb.Positionals]). The
// seam check reads the machine arguments with the command's model: each
// must be an option of it with a value it admits (one of its choices,
// where it has some), and none may take a path (unless the verb's
// PathParams says it is none), since `--output json` on a command whose
// --output names a file writes a file named json. A name a verb gives
// that the command lacks (in Exclude, PathParams, StoredCommand,
// Constraints or Fixed) makes the verb unavailable, live: a CLI that
// renames a path option cannot leave it unconfined.
//
// Programs not written for the machine-result contract are run through a
// dispatch.Runner in one of its output modes (dispatch.Output: json, jsonl,
// text, with ok exits): their stdout is data, never control, and the op's
// result is dispatch.OutputResult (contract C9 in CONTRACTS.md).
//
// Observe ops run under the request's context: a client cancel stops the
// observation or dispatch. Spawn and control ops run under
// context.WithoutCancel, bounded by the runner's own timeout, so a cancel never half-submits or half-kills; the op returns
// normally. Once the request is cancelled, ops not yet started do not start
// and report cancelled.
//
// v1 synonyms are accepted in ops until Options.SynonymSunset (judged by
// Options.Now), resolved to their verb before anything else, and never
// advertised; from the sunset on they are retired_synonym naming the verb.
//
// # Files and roots
//
// A parameter whose value names a file or directory the CLI opens is a
// path parameter: the adapter marks it (projector.Param.Path; fromcobra
// reads the "verbsurface:path" flag annotation, see
// fromcobra.AnnotationPath) or the verb declares it ([Verb.PathParams],
// which a fork uses for a CLI it cannot annotate, and which overrides the
// tree). Its use is read (a regular file), write (a file to create or
// replace, in a directory), dir (a working directory) or read_or_dir (a
// file or a directory it reads: a linter's FILE_OR_DIR).
//
// The operator, who alone is trusted, lists the allowed roots in
// Options.Roots. After validation and before the policy, every path
// argument is opened inside the root that holds it (os.Root: ".." and
// symlinks are resolved without leaving the root), without blocking, and
// judged by what was opened: its real path (the kernel's, on Linux) must
// lie under a root and outside /proc and /sys (also by filesystem type),
// and its type must serve the use (a FIFO, device or socket is refused
// without a byte read). A regular file with more than one name (a hard
// link) is refused too, unless Options.AllowHardLinks: a hard link inside a
// root to a file outside it has a real path inside the root, and nothing
// finds a file's other names. A refusal is invalid_args with rule
// outside_roots (naming the roots; or, with no roots at all, saying the
// surface allows no file access and how its operator enables it:
// Options.NoRootsHint) or unusable_path. What runs gets the real path in
// place of the caller's, and so does every policy: [Policy], the [Decider]
// and [Options.OnOp] see "/srv/prod" for "/srv/./prod", "/srv/dev/../prod"
// or a symlink to it, so a condition on a path cannot be bypassed by
// spelling it another way. (Confinement runs before the policy for that
// reason, and so an op it refuses is refused as invalid_args even where a
// policy would deny it: whether a path inside a root exists is the caller's
// to learn; a policy is no way to hide a file under a root.) A preparer
// reads the very file that was checked through [OpenConfined]
// (dispatch.PromptSnapshots.Open and dispatch.FileSnapshots.Open take it),
// so a swap between the check and the read changes nothing. The file a
// write names may be a symlink whose target does not exist yet: the
// target is what the program would create, so the link is followed (at
// most 8 links) and its target confined and judged in its place. Every use
// that can name a regular file (read, read_or_dir, the file a write
// replaces) refuses hard links.
//
// Options.Private names what no root may reach (a front's state home, its
// token file): it is carved out of every root, so a path argument under
// it, and a directory argument that holds it, is refused (outside_roots);
// New fails with a [PrivateInRootError] when a root is one of them or lies
// inside one. A stdio server started in the user's home directory, whose
// state home is under it, so serves the rest of the home.
//
// What confinement does not do: a dir or write argument is passed on as a
// real path, and the CLI opens it again by that name later, so a process
// that can write inside a root can swap a directory for a symlink in
// between; a read argument is safe from that only when a preparer reads it
// through OpenConfined (otherwise the CLI, too, opens the real path again).
// A device inside a root (a root of "/" holds /dev) is opened, non-blocking
// and read-only, before it is refused. Roots are resolved once, at New.
// Hard links are told apart only where the platform reports a link count
// (every Unix; not Windows). A dir or read_or_dir argument hands the
// program a directory, and the program follows every link it meets under
// it, out of the roots too, and reads files with two names:
// [Surface.RootLinks] finds the symlinks under the roots that leave them
// (bounded), so a front can warn its operator.
//
// # Stored commands
//
// A verb whose parameter holds a command line the CLI stores and runs
// later (a schedule's) guards it with [Verb.StoredCommand]: the words are
// read with the parser model as the CLI will read them
// (projector.ParseArgv, which refuses what it cannot read with certainty:
// an abbreviated or unknown option, combined short options it cannot
// resolve, a value that a parser would take as an option, a word argparse
// would read as a file of arguments), and the op is refused (invalid_args,
// rule stored_command) when the command is not under Allow or is fenced,
// or when it sets an excluded, machine or fixed parameter or any path
// parameter: a stored path would be opened later, unchecked. See
// [StoredCommand] for the rules in order.
//
// # Limits
//
// Three limits bound what one untrusted client can make a surface do; each
// is an [Options] field whose zero value is its default and whose negative
// value turns it off, and each refusal says what to do next:
//
// [Options.MaxResponseBytes] ([DefaultMaxResponseBytes], 4 MiB) bounds
// the encoded size of one response, failures counted like successes. A
// failure that does not fit what the response has left keeps its code
// with every quote cut to an excerpt ([ErrorObject].Cut names each); a
// success, or a failure still too large, is replaced by
// response_too_large (the op ran). A spawn's result claims its room
// first, so the id of a run it started is not lost to an earlier op's
// output; the rest are kept in op order. Whatever the cap, an
// invalid_args lists at most 64 problems ([RuleMoreProblems] counts the
// rest) and repeats a schema of at most 16 KiB, and a result no client
// could decode (see package internal/portablejson) is invalid_result.
// (The MCP binding sends the response object twice, as structured and as
// text content.)
//
// [Options.MaxInFlight] ([DefaultMaxInFlight], 2 × CPUs) bounds the
// commands running at once through the surface, whatever requests,
// sessions or JSON-RPC batches they come from: an op's command, and each
// command a handler runs through Call.Runner, holds a slot while it runs; the
// rest wait in arrival order. A handler's own runner (not Call.Runner) is
// outside the cap.
//
// [Options.SpawnsPerMinute] ([DefaultSpawnsPerMinute], 60) bounds the spawn
// ops one client may start a minute, keyed by [Options.ClientKey] (nil: one
// key for the surface); past it, rate_limited with retry_after. A verb of
// another class whose ops start runs (a scheduler's tick) is marked
// [Verb].Spawns and draws on the same bucket: one token per op when it
// runs its command, or, with a handler, one per run the handler starts
// ([SpawnTokens], in [Call].Spawns): the handler takes tokens, gives the
// command that many as its budget, and returns what was not used. No
// route that starts a run is left outside the limit.
//
// Array parameters may also carry limits of their own (projector.Param's
// MaxItems and UniqueItems, stated in the schema): an array over maxItems
// is refused on its length alone, before any item is examined.
//
// # Confirmation
//
// [Options.Decide] takes a payload-aware policy, a [Decider] (package
// policy's *Policy, loaded from a policy file against
// [Surface.PolicyVerbs]): after validation and Options.Policy, before the
// fingerprint, it decides each op allow, ask or deny with a rule and a
// reason. deny is policy_refused naming the rule.
//
// ask asks the person through the client, by the MCP binding
// ([AddRequestTool]), before anything of the request runs. When a request
// holds any op the Decider asks about ([Surface.Confirmations] finds them,
// running nothing), the tool answers with an input-required result (the
// multi round-trip requests of protocol 2026-07-28, SEP-2322): one form
// elicitation, id [ConfirmInputID], whose message shows each such op (verb,
// rule, reason, args, every long value cut with its size and SHA-256, every
// control, bidi or line-separator character escaped: [ConfirmMessage]) and
// asks for a boolean "confirm", and a requestState.
// The client asks its person and calls again with the answer and the state.
// go-sdk serves clients on older protocols the same handler through its
// compatibility path: it sends elicitation/create itself and calls the
// handler again with the answer.
//
// Nothing is kept between rounds. The requestState is sealed with
// HMAC-SHA256 under a key drawn at random when the surface is made, and
// binds, for each asked op, its index, verb, [ArgsDigest] (of its args as
// the Decider saw them: path arguments as real paths, so the person
// confirms the files that will be used and a symlink re-pointed before the
// retry makes it invalid) and rule, an
// expiry ([Options.ConfirmWithin], [DefaultConfirmWithin]), and on older
// protocols the session. On the retry every gate runs again and the op runs
// only when the person accepted (confirm true) and the state is genuine,
// unexpired and binds this very op; otherwise it is policy_refused with
// confirmation declined, cancelled, expired or invalid. A client that
// declared no elicitation capability is never asked: the op is
// policy_refused with confirmation unavailable, naming the rule. The other
// ops of the request run as usual, once. What this does not do: within its
// expiry a sealed state confirms the same ops with the same args again if a
// client replays it.
//
// [Options.OnOp] is told of every op once it finished, refused or not
// ([OpRecord]: verb, args and their digest, decision, rule, answer, result
// code, duration); with [RequestClient] it is an audit's hook.
//
// # Who is calling
//
// Over HTTP with OAuth, the MCP binding reads the verified token's
// subject, client id, scopes and named claims ([ClientInfo]; never the
// token) into the context of every op. A [Decider] that is an
// [IdentityDecider] (package policy's) judges each op with its caller;
// [Options.ClassScopes] makes a class of verbs need scopes
// (insufficient_scope, and [Surface.OpScopes] for the HTTP face's 403);
// [Options.SubjectSpawnsPerMinute] gives each subject a spawn bucket of its
// own beside the total; and [Options.Identity] ([RunIdentity]) passes the
// caller to the commands, exactly as the operator declares it. A caller
// without a verified identity (stdio, the static token) is the operator's:
// none of these apply to it.
//
// # Error codes
//
// Every error object has a code from a closed set, a one-sentence message,
// and the members its code names. Each code is a constant documented where
// it is declared, with what it means and what the caller does next
// ([CodeMalformedEnvelope] through [CodeInternalError]); [Codes] lists them
// all.
package verbsurface
