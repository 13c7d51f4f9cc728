"""A Python argparse CLI built for the projector's tests.

It covers every action, type and arity the projector translates, subparsers
with aliases and nesting, mutually exclusive groups (required and not), and
the cases it must refuse: a custom Action subclass, a custom type callable,
REMAINDER, an ambiguous nested subparser, a count with a non-zero default,
a '+' positional after a '?' one. The patterns of issue 17 (argparse.FileType
and pathlib.Path, store_const/append_const, count, nargs='?' options with a
const, consecutive optional positionals) have commands of their own. Factories: build (returns the parser), main (builds it and calls
parse_args, the usual shape), odd (the inventory fixture), and the failing
ones: not_a_parser, exits, raises.
"""

import argparse
import pathlib
import sys


class Upper(argparse.Action):
    """A custom Action subclass: what it stores is its own business."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values.upper())


class MyStore(argparse._StoreAction):
    """A subclass of a known action is still unknown."""


def parse_budget(text):
    """A custom type callable."""
    return float(text.rstrip("$"))


def build():
    parser = argparse.ArgumentParser(prog="vsfixture", description="A fixture CLI.\nSecond line.", fromfile_prefix_chars="@")
    parser.add_argument("--verbose", action="store_true", help="root option, left at its default by subcommands")
    sub = parser.add_subparsers(dest="command", required=True)

    types = sub.add_parser("types", aliases=["t", "ty"], help="every supported type and arity")
    types.add_argument("--name", help="a string")
    types.add_argument("--count", type=int, default=3, help="an int (default %(default)s)")
    types.add_argument("--ratio", type=float, default=0.5, help="a float")
    types.add_argument("--mode", choices=["fast", "slow"], default="fast", help="choices")
    types.add_argument("--level", type=int, choices=[1, 2, 3], help="int choices")
    types.add_argument("--port", type=int, choices=range(1, 65536), help="range choices")
    types.add_argument("--maybe", nargs="?", const="C", help="nargs ?")
    types.add_argument("--files", nargs="*", help="nargs *")
    types.add_argument("--nums", nargs="+", type=float, help="nargs + floats")
    types.add_argument("--one", nargs=1, help="nargs 1")
    types.add_argument("--pair", nargs=2, type=int, help="nargs 2 ints")
    types.add_argument("--tag", action="append", help="append")
    types.add_argument("--word", action="extend", nargs="+", help="extend")
    types.add_argument("--dry-run", action="store_true", help="store_true")
    types.add_argument("--no-cache", dest="cache", action="store_false", help="store_false")
    types.add_argument("--color", action=argparse.BooleanOptionalAction, help="BooleanOptionalAction")
    types.add_argument("--token", required=True, help="a required option")
    types.add_argument("--secret", help=argparse.SUPPRESS)
    types.add_argument("-k", type=str, help="a short-only option")
    types.add_argument("model", help="a positional")
    types.add_argument("prompt", nargs="?", default="hello", help="an optional positional")

    many = sub.add_parser("many", help="a variadic positional after a fixed one")
    many.add_argument("first", type=int)
    many.add_argument("rest", nargs="*")
    many.add_argument("last")

    groups = sub.add_parser("groups", help="mutually exclusive groups")
    out = groups.add_mutually_exclusive_group(required=True)
    out.add_argument("--json", action="store_true")
    out.add_argument("--yaml", action="store_true")
    out.add_argument("--format", choices=["a", "b"])
    loose = groups.add_mutually_exclusive_group()
    loose.add_argument("--fast", action="store_true")
    loose.add_argument("--careful", action="store_true")
    loose.add_argument("--limit", type=int, default=5)

    neg = sub.add_parser("neg", help="a parser with a negative-number-like option")
    neg.add_argument("-1", dest="one", action="store_true")
    neg.add_argument("--xs", nargs="+", type=int)
    neg.add_argument("--name")

    nest = sub.add_parser("nest", help="a group of subcommands")
    nsub = nest.add_subparsers(dest="nested", required=True)
    deep = nsub.add_parser("deep", help="a nested leaf")
    deep.add_argument("--depth", type=int, default=1)
    deep.add_argument("items", nargs="+")

    # Unavailable cases.
    bad = sub.add_parser("custom-action", help="a custom Action subclass")
    bad.add_argument("--shout", action=Upper)
    sub.add_parser("subclass-action", help="a subclass of a known action").add_argument("--x", action=MyStore)
    sub.add_parser("custom-type", help="a custom type callable").add_argument("--budget", type=parse_budget)
    sub.add_parser("remainder", help="REMAINDER").add_argument("rest", nargs=argparse.REMAINDER)
    sub.add_parser("count-default", help="a count from 1").add_argument("-v", action="count", default=1)
    plus = sub.add_parser("optional-then-plus", help="'+' after '?'")
    plus.add_argument("a", nargs="?")
    plus.add_argument("b", nargs="+")

    # The patterns of issue 17, now offered.
    sub.add_parser("file-type", help="argparse.FileType").add_argument("infile", type=argparse.FileType("r"))
    paths = sub.add_parser("paths", help="path types")
    paths.add_argument("infile", nargs="?", type=argparse.FileType("rb"), default=sys.stdin)
    paths.add_argument("outfile", nargs="?", type=pathlib.Path)
    paths.add_argument("--log", type=argparse.FileType("a"))
    paths.add_argument("--config", type=pathlib.Path)
    paths.add_argument("--output-dir", type=pathlib.Path)
    const = sub.add_parser("const", help="store_const and append_const")
    const.add_argument("--fast", action="store_const", const=2)
    const.add_argument("--debug", dest="level", action="store_const", const=10, default=20)
    const.add_argument("--tag-x", dest="tags", action="append_const", const="x")
    count = sub.add_parser("count", help="count")
    count.add_argument("-v", "--verbose", action="count")
    count.add_argument("-q", action="count", default=0)
    ov = sub.add_parser("optional-value", help="options with an optional value")
    ov.add_argument("--with-synthesis", nargs="?", const="default-model", metavar="MODEL")
    ov.add_argument("--jobs", nargs="?", type=int, const=4, default=1)
    ov.add_argument("--level", nargs="?", choices=["low", "high"], const="low")
    ov.add_argument("--maybe", nargs="?")
    ov.add_argument("rest", nargs="*")
    two = sub.add_parser("two-optional", help="two optional positionals")
    two.add_argument("a", nargs="?")
    two.add_argument("b", nargs="?")
    after = sub.add_parser("remainder-after", help="REMAINDER after an optional positional (trace's shape)")
    after.add_argument("--x")
    after.add_argument("prog", nargs="?")
    after.add_argument("rest", nargs=argparse.REMAINDER)
    sub.add_parser("star-default", help="a '*' positional with a default (gzip's shape)").add_argument(
        "files", nargs="*", default=["-"])
    three = sub.add_parser("optional-run", help="optional positionals then a '*' one")
    three.add_argument("first")
    three.add_argument("year", nargs="?", type=int)
    three.add_argument("month", nargs="?", type=int, choices=range(1, 13))
    three.add_argument("more", nargs="*")
    clash2 = sub.add_parser("clash-values", help="two value options, one dest")
    clash2.add_argument("--name", dest="who")
    clash2.add_argument("--id", dest="who")
    many = sub.add_parser("append-many", help="two append_const flags, one dest")
    many.add_argument("--add-a", dest="items", action="append_const", const="a")
    many.add_argument("--add-b", dest="items", action="append_const", const="b")
    sub.add_parser("custom-type-choices", help="choices of a custom type").add_argument(
        "--budget", type=parse_budget, choices=[1000, 2000])
    clash = sub.add_parser("clash", help="two flags, one dest")
    clash.add_argument("--on", dest="state", action="store_true")
    clash.add_argument("--off", dest="state", action="store_false")
    # The same parser object under two names that are not aliases of one
    # entry: an ambiguous nested subparser.
    shared = argparse.ArgumentParser(prog="shared", add_help=False)
    shared.add_argument("--x")
    nsub._name_parser_map["shared"] = shared
    sub._name_parser_map["shared-too"] = shared
    return parser


def main():
    parser = argparse.ArgumentParser(prog="vsmain", description="built inside main()")
    parser.add_argument("--n", type=int, default=1)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    print("would run with", args)  # never reached during a walk
    sys.exit(0)


def odd():
    """The inventory fixture: unknown actions and non-scalar types, each named."""
    parser = argparse.ArgumentParser(prog="odd")
    sub = parser.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("clean", help="projects cleanly")
    a.add_argument("--n", type=int)
    a.add_argument("path")
    b = sub.add_parser("actions", help="unknown actions")
    b.add_argument("--shout", action=Upper)
    b.add_argument("--x", action=MyStore)
    c = sub.add_parser("types", help="non-scalar types")
    c.add_argument("--budget", type=parse_budget)
    c.add_argument("--when", type=lambda s: s)
    c.add_argument("--flag", type=bool)
    c.add_argument("--ok")
    return parser


def edges():
    """Constructs at the edge of the projected subset, one subcommand each:
    the constraints the schema must add for them, and the refusals."""
    parser = argparse.ArgumentParser(prog="edges")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--version-info", action="store_true")
    sub = parser.add_subparsers(dest="cmd", required=True)

    # argparse counts a required group's member as given only if its value
    # "is not" the default: CPython caches small ints and one-character
    # strings, so --level=5 and --sep=, leave the group unsatisfied.
    g = sub.add_parser("reqgroup", help="required group members with cached defaults")
    grp = g.add_mutually_exclusive_group(required=True)
    grp.add_argument("--level", type=int, default=5)
    grp.add_argument("--sep", default=",")
    grp.add_argument("--color", action=argparse.BooleanOptionalAction, default=True)
    grp.add_argument("--big", type=int, default=1000)

    s = sub.add_parser("star-choices", help="a '*' positional with choices")
    s.add_argument("colors", nargs="*", choices=["red", "green"])

    o = sub.add_parser("opt-default", help="a '?' positional whose default is not a choice")
    o.add_argument("size", nargs="?", choices=["s", "m"], default="xl")

    n = sub.add_parser("neg-range", help="negative-number-like option; items with a negative range")
    n.add_argument("-1", dest="one", action="store_true")
    n.add_argument("--xs", nargs="+", type=int, choices=range(-100, 100))

    a = sub.add_parser("append-empty", help="append with an empty default list")
    a.add_argument("--tag", action="append", default=[])

    a = sub.add_parser("append-tuples", help="append with nargs=N: a list of N-lists")
    a.add_argument("--pair", action="append", nargs=2, help="pairs of words")
    a.add_argument("--point", action="append", nargs=3, type=int, default=[])
    a.add_argument("--one", action="append", nargs=1, type=float)
    a.add_argument("--mode", action="append", nargs=2, choices=["r", "w"])

    # Unavailable cases.
    sub.add_parser("extend-plain", help="extend without nargs").add_argument("--chars", action="extend")
    sub.add_parser("append-default", help="append to a non-empty default").add_argument("--tag", action="append", default=["x"])
    sub.add_parser("plus", help="prefix_chars +", prefix_chars="+").add_argument("+x")
    h = sub.add_parser("hidden-first", help="a hidden positional before a visible one")
    h.add_argument("secret", nargs="?", help=argparse.SUPPRESS)
    h.add_argument("name")
    hg = sub.add_parser("hidden-group", help="a required group with only hidden members")
    hgrp = hg.add_mutually_exclusive_group(required=True)
    hgrp.add_argument("--a", help=argparse.SUPPRESS)
    hgrp.add_argument("--b", help=argparse.SUPPRESS)
    sub.add_parser("amb", help="an option that is an ambiguous abbreviation in the root").add_argument("--ver")
    sub.add_parser("empty-choices", help="an empty choices list").add_argument("--c", choices=[])
    sub.add_parser("float-range", help="a range of choices for a float").add_argument("--f", type=float, choices=range(0, 100))

    # Ancestors that need something before the subcommand name.
    anc = sub.add_parser("anc", help="a parent with a required option")
    anc.add_argument("--need", required=True)
    anc.add_subparsers(dest="a", required=True).add_parser("leaf", help="under a required option")
    ancg = sub.add_parser("ancgroup", help="a parent with a required exclusive group")
    agrp = ancg.add_mutually_exclusive_group(required=True)
    agrp.add_argument("--on", action="store_true")
    agrp.add_argument("--off", action="store_true")
    ancg.add_subparsers(dest="g", required=True).add_parser("leaf", help="under a required group")
    ancp = sub.add_parser("ancpos", help="a parent with a positional")
    ancp.add_argument("where")
    ancp.add_subparsers(dest="p", required=True).add_parser("leaf", help="under a positional")

    # A subparser that lists its own parent: a cycle, not a second path.
    loop = sub.add_parser("loop", help="a group whose subcommand is itself")
    loop.add_subparsers(dest="l")._name_parser_map["again"] = loop
    return parser


class Lazy:
    """A lazily translated string (Django's gettext_lazy, a Babel
    LazyString): not a str, but str() gives its text."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def readers():
    """What the reader once got wrong, one subcommand each (issue 34)."""
    parser = argparse.ArgumentParser(prog="readers", description=Lazy("lazy description"))
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("star-suppressed", help=Lazy("a '*' positional under argument_default=SUPPRESS"),
                       argument_default=argparse.SUPPRESS)
    s.add_argument("files", nargs="*")
    s = sub.add_parser("extend-pos", help="a '*' positional with action=extend")
    s.add_argument("--sep")
    s.add_argument("items", nargs="*", action="extend")
    s = sub.add_parser("extend-plus", help="a '+' positional with action=extend")
    s.add_argument("items", nargs="+", action="extend", type=int)
    s = sub.add_parser("append-pos", help="a positional with action=append")
    s.add_argument("item", action="append")
    s = sub.add_parser("lazy", help="help and metavar that are not str")
    s.add_argument("--name", help=Lazy("the %(dest)s to greet"), metavar=Lazy("NAME"))
    s.add_argument("word", help=Lazy("a word"))
    s = sub.add_parser("method", help="an optional method word before a URL (httpie's shape)")
    s.add_argument("method", nargs="?", choices=["GET", "POST", "DELETE"])
    s.add_argument("url")
    s.add_argument("items", nargs="*")
    s.add_argument("--verbose", action="store_true")
    return parser


def not_a_parser():
    return 42


def exits():
    sys.exit(3)


def raises():
    raise ValueError("configuration file missing")


if __name__ == "__main__":
    build().parse_args()
