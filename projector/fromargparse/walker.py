# The fromargparse walker. Embedded in the Go package and run as
# `python3 -c <prelude + this source> MODE` (pywalk.Run; the prelude,
# projector/internal/pywalk/prelude.py, holds the protocol's main,
# WalkError and _jsonable), with a JSON request on stdin and a JSON answer
# on stdout.
#
# MODE "walk": {"targets": ["pkg.mod:factory" | "pkg.mod:__main__", ...]}
#   -> {"results": [{"target": ..., "ok": true, "parser": PARSER} |
#                   {"target": ..., "ok": false, "kind": ..., "message": ...}]}
# MODE "parse" (used by the round-trip tests):
#   {"requests": [{"target": ..., "argv": [...]}, ...]}
#   -> {"results": [{"ok": true, "namespace": {...}} | {"ok": false, "error": ...}]}
#
# A target's parser is obtained by calling the factory: if it returns an
# ArgumentParser, that is the parser; if it builds one and calls parse_args
# (the usual main() shape), the call is intercepted and the parser captured
# before anything runs. "module:__main__" runs the module as __main__ (runpy)
# under the same interception, for programs that build their parser under
# `if __name__ == "__main__":`.
#
# The walker reports raw facts (action classes, nargs, types, defaults,
# choices); the Go side decides what is representable.

import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import os
import pathlib
import runpy
import sys

class _Captured(BaseException):
    # BaseException, so that a program's `except Exception` cannot swallow it.
    def __init__(self, parser):
        super().__init__("parser captured")
        self.parser = parser


_PARSE_METHODS = ("parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args")


@contextlib.contextmanager
def _intercept():
    saved = {name: getattr(argparse.ArgumentParser, name) for name in _PARSE_METHODS}

    def capture(self, *args, **kwargs):
        raise _Captured(self)

    for name in _PARSE_METHODS:
        setattr(argparse.ArgumentParser, name, capture)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(argparse.ArgumentParser, name, fn)


def get_parser(target):
    module_name, sep, func_name = target.partition(":")
    if not sep or not module_name or not func_name:
        raise WalkError("bad_target", "target %r is not MODULE:FUNCTION or MODULE:__main__" % target)
    saved_argv = sys.argv
    sys.argv = [module_name.rsplit(".", 1)[-1]]
    try:
        with _intercept(), contextlib.redirect_stdout(sys.stderr):
            try:
                if func_name == "__main__":
                    try:
                        spec = importlib.util.find_spec(module_name)
                    except BaseException as e:
                        raise WalkError("import", "cannot import module %s: %s: %s" % (module_name, type(e).__name__, e))
                    if spec is None:
                        raise WalkError("import", "cannot import module %s: no such module" % module_name)
                    runpy.run_module(module_name, run_name="__main__", alter_sys=True)
                    raise WalkError("no_parser", "running module %s as __main__ finished without parsing arguments with argparse" % module_name)
                try:
                    module = importlib.import_module(module_name)
                except _Captured:
                    raise
                except BaseException as e:
                    raise WalkError("import", "cannot import module %s: %s: %s" % (module_name, type(e).__name__, e))
                factory = module
                for part in func_name.split("."):
                    if not hasattr(factory, part):
                        raise WalkError("no_factory", "module %s has no attribute %s" % (module_name, func_name))
                    factory = getattr(factory, part)
                if not callable(factory):
                    raise WalkError("no_factory", "%s:%s is not callable" % (module_name, func_name))
                result = factory()
            except _Captured as c:
                return c.parser
            except WalkError:
                raise
            except SystemExit as e:
                raise WalkError("factory", "%s exited (status %r) before parsing arguments" % (target, e.code))
            except BaseException as e:
                raise WalkError("factory", "%s raised %s: %s" % (target, type(e).__name__, e))
    finally:
        sys.argv = saved_argv
    if not isinstance(result, argparse.ArgumentParser):
        raise WalkError("not_parser", "%s returned %s, not an argparse.ArgumentParser" % (target, type(result).__name__))
    return result


# --- describing a parser -------------------------------------------------

_KNOWN = {
    argparse._StoreAction: "store",
    argparse._StoreConstAction: "store_const",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
    argparse._AppendAction: "append",
    argparse._AppendConstAction: "append_const",
    argparse._CountAction: "count",
    argparse._HelpAction: "help",
    argparse._VersionAction: "version",
    argparse._SubParsersAction: "parsers",
    argparse._ExtendAction: "extend",
    argparse.BooleanOptionalAction: "BooleanOptionalAction",
}

_SCALAR_TYPES = {int: "int", float: "float", str: "str"}


def _class_name(cls):
    module = getattr(cls, "__module__", "")
    name = getattr(cls, "__qualname__", getattr(cls, "__name__", repr(cls)))
    return name if module in ("builtins", "__main__", "") else module + "." + name


def _value(v):
    if v is argparse.SUPPRESS:
        return {"suppress": True}
    ok, j = _jsonable(v)
    return {"value": j} if ok else {"unjsonable": j}


def _file_mode_use(mode):
    # "read" for a file argparse.FileType opens only for reading.
    return "write" if any(c in mode for c in "wax+") else "read"


def _type_desc(t):
    if t is None:
        return None
    if t in _SCALAR_TYPES:
        return {"name": _SCALAR_TYPES[t], "scalar": _SCALAR_TYPES[t]}
    # Path types: the value is a string naming a file. FileType opens it
    # (its mode says read or write); a pathlib class wraps it.
    if isinstance(t, argparse.FileType):
        return {"name": "argparse.FileType", "scalar": None, "path": _file_mode_use(getattr(t, "_mode", "r"))}
    if isinstance(t, type) and issubclass(t, pathlib.PurePath):
        return {"name": _class_name(t), "scalar": None, "path": "path"}
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", None)
    if name is None:  # an instance, such as argparse.FileType('r')
        name = _class_name(type(t))
    else:
        module = getattr(t, "__module__", "")
        if module not in ("builtins", "__main__", None, ""):
            name = module + "." + name
    return {"name": name, "scalar": None}


def _choices_desc(choices):
    if choices is None:
        return None
    if isinstance(choices, range) and choices.step == 1 and len(choices) > 64:
        return {"range": [choices.start, choices.stop - 1]}
    if isinstance(choices, (set, frozenset)):
        items = sorted(choices, key=repr)
    elif isinstance(choices, dict):
        items = list(choices.keys())
    else:
        try:
            items = list(choices)
        except TypeError:
            return {"unjsonable": repr(choices)}
    ok, j = _jsonable(items)
    return {"values": j} if ok else {"unjsonable": repr(choices)}


def _default_desc(parser, action):
    d = action.default
    # argparse converts a string default through the type when the option
    # is not given (ArgumentParser.parse_known_args); report the result.
    if isinstance(d, str) and action.type is not None and d is not argparse.SUPPRESS:
        try:
            d = parser._get_value(action, d)
        except BaseException as e:
            return {"unjsonable": "default %r does not convert: %s" % (action.default, e)}
    return _value(d)


def _text(v):
    # Help, descriptions and metavars are meant to be str, but a program
    # may pass a lazily translated string (Django's gettext_lazy, Babel's
    # LazyString) that argparse itself only ever formats: read it as
    # str() does, and never fail a walk over a help string.
    if v is None or isinstance(v, str):
        return v
    try:
        return str(v)
    except BaseException as e:
        return "<help text that does not convert to str: %s>" % type(e).__name__


def _help(parser, action):
    if action.help is None:
        return None
    if action.help is argparse.SUPPRESS:
        return argparse.SUPPRESS
    try:
        return _text(parser._get_formatter()._expand_help(action))
    except BaseException:
        pass
    text = _text(action.help)
    try:
        # What _expand_help does, on the text: "%(default)s" and friends.
        params = dict(vars(action), prog=parser.prog)
        return text % {k: v for k, v in params.items() if v is not argparse.SUPPRESS}
    except BaseException:
        return text


def describe(parser, path, seen, ancestors):
    desc = {
        "prog": parser.prog,
        "description": _text(parser.description),
        "prefix_chars": parser.prefix_chars,
        "fromfile_prefix_chars": parser.fromfile_prefix_chars or "",
        "negative_number_optionals": bool(parser._has_negative_number_optionals),
        "actions": [],
        "groups": [],
        "subparsers": None,
    }
    index = {}
    for i, action in enumerate(parser._actions):
        index[id(action)] = i
        cls = type(action)
        a = {
            "class": _class_name(cls),
            "known": _KNOWN.get(cls),
            "option_strings": list(action.option_strings),
            "dest": action.dest,
            "nargs": action.nargs,
            "default": _default_desc(parser, action),
            "type": _type_desc(action.type),
            "choices": None if cls is argparse._SubParsersAction else _choices_desc(action.choices),
            "required": bool(action.required),
            "help": _help(parser, action),
            "const": _value(action.const),
            "ambiguous_in_ancestor": None,
            "metavar": _text(action.metavar) if not isinstance(action.metavar, tuple) else None,
        }
        # An option the subcommand renders must not be an ambiguous
        # abbreviation in an ancestor parser: each ancestor classifies
        # every word of argv before handing the rest to the subparser, and
        # an ambiguous prefix is an error there.
        for anc in ancestors:
            if not anc.allow_abbrev:
                continue
            for o in action.option_strings:
                for word in (o, o + "=x"):
                    if word.split("=", 1)[0] in anc._option_string_actions:
                        continue
                    try:
                        tuples = anc._get_option_tuples(word)
                    except BaseException:
                        tuples = []
                    if len(tuples) > 1 and a["ambiguous_in_ancestor"] is None:
                        a["ambiguous_in_ancestor"] = "%s is an ambiguous abbreviation in parser %r (matches %s)" % (
                            word, anc.prog, ", ".join(sorted(t[1] for t in tuples)))
        desc["actions"].append(a)
        if cls is argparse._SubParsersAction or isinstance(action, argparse._SubParsersAction):
            if desc["subparsers"] is not None:
                desc["subparsers"]["multiple"] = True
                continue
            desc["subparsers"] = _describe_subparsers(parser, action, i, path, seen, ancestors)
    for g in parser._mutually_exclusive_groups:
        desc["groups"].append({
            "actions": [index[id(a)] for a in g._group_actions if id(a) in index],
            "required": bool(g.required),
        })
    return desc


def _describe_subparsers(parser, action, i, path, seen, ancestors):
    helps = {}
    for ca in getattr(action, "_choices_actions", []):
        helps[ca.dest] = ca.help if ca.help is argparse.SUPPRESS else _text(ca.help)
    by_parser = {}
    order = []
    for name, sub in action.choices.items():
        key = id(sub)
        if key not in by_parser:
            by_parser[key] = {"name": name, "aliases": [], "parser_obj": sub}
            order.append(key)
        else:
            by_parser[key]["aliases"].append(name)
    out = {
        "index": i,
        "class": _class_name(type(action)),
        "required": bool(action.required),
        "multiple": False,
        "commands": [],
    }
    for key in order:
        entry = by_parser[key]
        sub = entry.pop("parser_obj")
        sub_path = path + [entry["name"]]
        help_text = helps.get(entry["name"])
        entry["help"] = None if help_text is argparse.SUPPRESS else help_text
        entry["hidden"] = help_text is argparse.SUPPRESS
        # A cycle first: every ancestor is also in seen, and a parser that
        # contains itself is a cycle, not a second path to one parser.
        if sub is parser or any(sub is a for a in ancestors):
            entry["cycle"] = True
            entry["parser"] = None
        elif key in seen:
            entry["same_as"] = seen[key]
            entry["parser"] = None
        else:
            seen[key] = sub_path
            entry["parser"] = describe(sub, sub_path, seen, ancestors + [parser])
        out["commands"].append(entry)
    return out


# --- modes ----------------------------------------------------------------

def walk(request):
    results = []
    for target in request["targets"]:
        try:
            parser = get_parser(target)
            results.append({"target": target, "ok": True, "parser": describe(parser, [], {id(parser): []}, [])})
        except WalkError as e:
            results.append({"target": target, "ok": False, "kind": e.kind, "message": e.message})
    return {"results": results}


def _ns_json(ns):
    out = {}
    for k, v in vars(ns).items():
        if isinstance(v, os.PathLike):
            v = os.fspath(v)
        ok, j = _jsonable(v)
        out[k] = j if ok else {"unjsonable": j}
    return out


def _name_files(parser, seen=None):
    # For the round trip only: argparse.FileType would open (or create) the
    # named file, and any other type callable (not int, float, str or a
    # pathlib class) converts the word in its own way; what the round trip
    # checks is the string argparse hands to it, so each such callable is
    # replaced by str.
    seen = set() if seen is None else seen
    if id(parser) in seen:
        return parser
    seen.add(id(parser))
    for action in parser._actions:
        t = action.type
        if t is not None and t not in _SCALAR_TYPES and not (isinstance(t, type) and issubclass(t, pathlib.PurePath)):
            action.type = str
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _name_files(sub, seen)
    return parser


def parse(request):
    parsers = {}
    results = []
    for req in request["requests"]:
        target = req["target"]
        try:
            if target not in parsers:
                parsers[target] = _name_files(get_parser(target))
            parser = parsers[target]
        except WalkError as e:
            results.append({"ok": False, "error": "%s: %s" % (e.kind, e.message)})
            continue
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
                ns = parser.parse_args(list(req["argv"] or []))
            results.append({"ok": True, "namespace": _ns_json(ns)})
        except SystemExit:
            results.append({"ok": False, "error": err.getvalue().strip()[-2000:]})
    return {"results": results}


serve({"walk": walk, "parse": parse})
