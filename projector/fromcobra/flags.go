package fromcobra

import (
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
)

// Cobra's flag annotations (cobra v1.10.2 shell_completions.go and
// flag_groups.go). The group annotations are unexported in cobra; their
// values are part of cobra's behaviour (help output, completion scripts) and
// so stable.
const (
	annotationRequired          = cobra.BashCompOneRequiredFlag // "cobra_annotation_bash_completion_one_required_flag"
	annotationMutuallyExclusive = "cobra_annotation_mutually_exclusive"
	annotationOneRequired       = "cobra_annotation_one_required"
	annotationRequiredTogether  = "cobra_annotation_required_if_others_set"
)

// DurationPattern is the pattern of a pflag duration parameter: one to three
// components of up to five integer digits (and up to nine fraction digits)
// with a Go duration unit, or "0". It is narrower than time.ParseDuration on
// purpose: every string it admits parses without overflowing int64
// nanoseconds (three components of at most 99999.999999999h stay below
// 2^63 ns), so a value validation accepts is a value the CLI accepts. It
// admits no negative duration: a timeout, a grace or an interval below zero
// is a mistake the CLI would refuse only after the schema let it through (a
// CLI that does take one states its own pattern with [Constrain]).
const DurationPattern = `^\+?(?:0|(?:[0-9]{1,5}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})(?:ns|us|µs|μs|ms|s|m|h)(?:(?:[0-9]{1,5}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})(?:ns|us|µs|μs|ms|s|m|h)){0,2})$`

// StringListItemPattern constrains each item of a pflag stringSlice or
// stringArray: not empty, no NUL (argv cannot carry it) and no carriage
// return. pflag reads a stringSlice occurrence as a CSV record, and a
// program reading either type back through pflag's getters (GetStringSlice,
// GetStringArray) gets its value written out as CSV and read back in: CSV
// drops a carriage return before a newline even inside quotes, and writes the
// list [""] as an empty record, which reads back as [].
const StringListItemPattern = `^[^\x00\r]+$`

// StringToStringPattern constrains each item of a pflag stringToString
// flag, given as --flag=key=value once per pair: exactly one "=" (with more,
// pflag reads the word as CSV), a non-empty key, and no quote at either end
// (pflag trims quotes there), no NUL (argv cannot carry it) and no carriage
// return. A later pair with the same key replaces an earlier one.
const StringToStringPattern = `^[^\x00\r"=][^\x00\r=]*=(?:[^\x00\r=]*[^\x00\r="])?$`

func isRequired(f *pflag.Flag) bool {
	v := f.Annotations[annotationRequired]
	return len(v) > 0 && v[0] == "true"
}

func bounds(lo, hi float64) (*float64, *float64) { return &lo, &hi }

// pflagAction is the Param.Action of a flag of pflag type typ: a constant
// for pflag's own types (a walk makes one per flag), built for others.
func pflagAction(typ string) string {
	switch typ {
	case "string":
		return "pflag:string"
	case "bool":
		return "pflag:bool"
	case "int":
		return "pflag:int"
	case "int64":
		return "pflag:int64"
	case "stringSlice":
		return "pflag:stringSlice"
	case "stringArray":
		return "pflag:stringArray"
	case "duration":
		return "pflag:duration"
	case "float64":
		return "pflag:float64"
	case "count":
		return "pflag:count"
	}
	return "pflag:" + typ
}

// flagParam maps one visible flag to a parameter, by its pflag value type.
func flagParam(f *pflag.Flag) *projector.Param {
	typ := f.Value.Type()
	p := &projector.Param{
		Name:     snakeCase(f.Name),
		Options:  append(make([]string, 0, 2), "--"+f.Name),
		Kind:     projector.KindString,
		Arity:    projector.ArityOne,
		Required: isRequired(f),
		Help:     f.Usage,
		Action:   pflagAction(typ),
		Type:     typ,
	}
	if f.Shorthand != "" {
		p.Options = append(p.Options, "-"+f.Shorthand)
	}
	if strings.Contains(f.Usage, "`") {
		// The author named the value in backquotes ("prints the output
		// in the given `format`"), as pflag's help shows it.
		p.Metavar, _ = pflag.UnquoteUsage(f)
	}
	var err error
	switch typ {
	case "string":
		p.Default = f.DefValue
	case "bool":
		p.Kind, p.Arity = projector.KindBoolean, projector.ArityNone
		// A bare bool flag stores its NoOptDefVal ("true" unless the CLI
		// changed it); any other value is spelled --flag=value.
		p.FlagValue = true
		if f.NoOptDefVal == "" {
			// Without a no-value default the flag needs "=value":
			// offer it as a boolean spelled --flag=true|false.
			p.Arity = projector.ArityOne
		} else if p.FlagValue, err = strconv.ParseBool(f.NoOptDefVal); err != nil {
			break
		}
		p.Default, err = strconv.ParseBool(f.DefValue)
	case "int", "int64", "int8", "int16", "int32", "count":
		p.Kind = projector.KindInteger
		switch typ {
		case "int8":
			p.Minimum, p.Maximum = bounds(math.MinInt8, math.MaxInt8)
		case "int16":
			p.Minimum, p.Maximum = bounds(math.MinInt16, math.MaxInt16)
		case "int32":
			p.Minimum, p.Maximum = bounds(math.MinInt32, math.MaxInt32)
		case "count":
			// pflag's count parses any integer given as --v=N; a count
			// below zero means nothing to the CLI, so it is not offered.
			p.Minimum = new(float64)
		}
		p.Default, err = strconv.ParseInt(f.DefValue, 0, 64)
	case "uint", "uint64", "uint8", "uint16", "uint32":
		p.Kind = projector.KindInteger
		p.Minimum = new(float64)
		switch typ {
		case "uint8":
			_, p.Maximum = bounds(0, math.MaxUint8)
		case "uint16":
			_, p.Maximum = bounds(0, math.MaxUint16)
		case "uint32":
			_, p.Maximum = bounds(0, math.MaxUint32)
		}
		var u uint64
		u, err = strconv.ParseUint(f.DefValue, 0, 64)
		p.Default = u
	case "float64", "float32":
		p.Kind = projector.KindNumber
		bits := 64
		if typ == "float32" {
			bits = 32
			p.Minimum, p.Maximum = bounds(-math.MaxFloat32, math.MaxFloat32)
		}
		p.Default, err = strconv.ParseFloat(f.DefValue, bits)
	case "duration":
		p.Pattern = DurationPattern
		p.Default = f.DefValue
	case "stringSlice", "stringArray":
		p.Arity = projector.ArityRepeated
		var def []string
		def, err = readBracketedCSV(f.DefValue)
		p.Default = def
		p.Pattern = StringListItemPattern
		if typ == "stringArray" && len(def) > 0 {
			// The first --x=v replaces a stringArray's default, but no
			// spelling sets it to empty: an empty list cannot be rendered.
			p.MinItems = 1
		}
	case "intSlice":
		p.Kind, p.Arity = projector.KindInteger, projector.ArityRepeated
		var def []int64
		def, err = readBracketedInts(f.DefValue)
		p.Default = def
		if len(def) > 0 {
			p.MinItems = 1 // as for stringArray: "--x=" does not parse as an empty list
		}
	case "stringToString":
		// A map given as key=value once per pair (see StringToStringPattern).
		p.Arity, p.Pattern = projector.ArityRepeated, StringToStringPattern
		var def []string
		def, err = readBracketedCSV(f.DefValue) // "[k=v,…]", the map's pairs as CSV
		sort.Strings(def)
		p.Default = def
		if len(def) > 0 {
			p.MinItems = 1 // the first pair replaces the default map; none leaves it
		}
	default:
		// Any other pflag.Value (the other built-in types and every custom
		// one) is string-in by construction: Set(string) reads one word.
		// Its honest schema is a string, an enum where the type offers its
		// choices (Chooser), and the CLI is the final validator: a value
		// Set refuses is a usage error the CLI reports.
		p.Default = nil
	}
	if p.Unrepresentable == nil && err == nil && f.NoOptDefVal != "" && p.Kind != projector.KindBoolean && p.Arity == projector.ArityOne && typ != "count" {
		// Given bare, the flag stores its no-value default.
		p.Bare, p.Const = true, f.NoOptDefVal
	}
	if err != nil {
		p.Default = nil
		p.Unrepresentable = &projector.Unrepresentable{Action: p.Action, Type: typ, Reason: fmt.Sprintf("cannot read flag --%s's default %q or no-value default %q as %s: %v", f.Name, f.DefValue, f.NoOptDefVal, typ, err)}
	}
	if p.Unrepresentable == nil {
		flagChoices(f, p)
	}
	p.Path = pathUse(f)
	return p
}

// AnnotationPath is the flag annotation by which a cobra CLI declares that
// a flag's value names a file or directory it opens: its first value is
// "read", "write", "dir" or "read_or_dir" (projector.PathUse). Set it with
// cmd.Flags().SetAnnotation(name, fromcobra.AnnotationPath, []string{"read"}).
const AnnotationPath = "verbsurface:path"

// pathUse reads AnnotationPath. A value that is not one of the four is
// read as "read", the use a surface checks most strictly short of refusing:
// a misspelt annotation must not turn the check off.
func pathUse(f *pflag.Flag) projector.PathUse {
	v := f.Annotations[AnnotationPath]
	if len(v) == 0 {
		return projector.PathUseNone
	}
	switch use := projector.PathUse(v[0]); use {
	case projector.PathUseRead, projector.PathUseWrite, projector.PathUseDir, projector.PathUseReadOrDir:
		return use
	}
	return projector.PathUseRead
}

// Chooser is implemented by a pflag.Value that accepts only a fixed set of
// values (for example a flag a CLI injects from a playbook's declared
// choices). pflag has no notion of choices, so a Value that enforces them in
// Set can say so here, and the walker offers them as the parameter's enum.
type Chooser interface {
	Choices() []string
}

// flagChoices reads a Chooser's choices into p, typed by p's kind. A choice
// that does not parse as the flag's kind makes the parameter unrepresentable:
// an enum the CLI would reject is a schema that lies.
func flagChoices(f *pflag.Flag, p *projector.Param) {
	c, ok := f.Value.(Chooser)
	if !ok || p.Kind == projector.KindBoolean {
		return
	}
	names := c.Choices()
	if len(names) == 0 {
		return
	}
	choices := make([]any, 0, len(names))
	for _, s := range names {
		var v any
		var err error
		switch p.Kind {
		case projector.KindInteger:
			v, err = strconv.ParseInt(s, 0, 64)
		case projector.KindNumber:
			v, err = strconv.ParseFloat(s, 64)
		default:
			v = s
		}
		if err != nil {
			p.Unrepresentable = &projector.Unrepresentable{Action: p.Action, Type: p.Type, Reason: fmt.Sprintf("flag --%s offers choice %q, which is not a %s", f.Name, s, p.Kind)}
			return
		}
		choices = append(choices, v)
	}
	p.Choices = choices
}

// readBracketedCSV reads a pflag slice's DefValue, "[a,b]" written as CSV.
func readBracketedCSV(s string) ([]string, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" {
		return []string{}, nil
	}
	return csv.NewReader(strings.NewReader(s)).Read()
}

func readBracketedInts(s string) ([]int64, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	out := []int64{}
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// groups reads cobra's flag-group annotations, as cobra's ValidateFlagGroups
// does: a group counts only if all its flags exist in the command's flag set.
// offered maps the flag names that became parameters to their param names.
func (w *walker) groups(c *cobra.Command, cmd *projector.Command, offered map[string]string) {
	fs := c.Flags()
	// One pass over the flags for all three annotations (VisitAll sorts).
	annotations := []string{annotationMutuallyExclusive, annotationOneRequired, annotationRequiredTogether}
	found := make([][][]string, len(annotations))
	seen := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		for i, annotation := range annotations {
			for _, g := range f.Annotations[annotation] {
				if seen[annotation+"\x00"+g] {
					continue
				}
				seen[annotation+"\x00"+g] = true
				members := strings.Split(g, " ")
				all := true
				for _, m := range members {
					if fs.Lookup(m) == nil {
						all = false
					}
				}
				if all {
					found[i] = append(found[i], members)
				}
			}
		}
	})
	collect := func(annotation string) [][]string {
		for i, a := range annotations {
			if a == annotation {
				return found[i]
			}
		}
		return nil
	}
	visible := func(members []string) []string {
		var out []string
		for _, m := range members {
			if name, ok := offered[m]; ok {
				out = append(out, name)
			}
		}
		return out
	}
	setKey := func(members []string) string {
		s := append([]string(nil), members...)
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	exclusive := map[string]int{} // set key -> index in cmd.Groups
	for _, members := range collect(annotationMutuallyExclusive) {
		if v := visible(members); len(v) >= 2 {
			exclusive[setKey(members)] = len(cmd.Groups)
			cmd.Groups = append(cmd.Groups, projector.Group{Params: v})
		}
	}
	for _, members := range collect(annotationOneRequired) {
		v := visible(members)
		if len(v) == 0 {
			if cmd.Unrepresentable == nil {
				cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("one of flags --%s is required, but none of them can be offered (hidden, deprecated or excluded)", strings.Join(members, ", --"))}
			}
			continue
		}
		if i, ok := exclusive[setKey(members)]; ok {
			cmd.Groups[i].Required = true
			continue
		}
		cmd.AnyRequired = append(cmd.AnyRequired, v)
	}
	for _, members := range collect(annotationRequiredTogether) {
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("flags --%s must be given together (MarkFlagsRequiredTogether), which the schema subset cannot express", strings.Join(members, ", --"))}
		}
	}
}
