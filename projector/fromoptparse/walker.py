# The fromoptparse walker. Embedded in the Go package and run as
# `python3 -c <prelude + this source> MODE` (pywalk.Run; the prelude,
# projector/internal/pywalk/prelude.py, holds the protocol's main,
# WalkError and _jsonable), with a JSON request on stdin and a JSON answer
# on stdout.
#
# MODE "walk": {"targets": ["pkg.mod:object", ...], "command": "pkg.mod:factory" | ""}
#   -> {"results": [{"target": ..., "ok": true, "root": PARSER|null, "commands": [COMMAND...]|null} |
#                   {"target": ..., "ok": false, "kind": ..., "message": ...}]}
# MODE "parse" (used by the round-trip tests):
#   {"requests": [{"target": ..., "command": ..., "path": [...], "argv": [...]}, ...]}
#   -> {"results": [{"ok": true, "values": {...}, "args": [...]} | {"ok": false, "error": ...}]}
#
# A target names an optparse.OptionParser (or an object whose .parser is
# one), a command table (a mapping from command name to a parser, to an
# object with .parser, or to anything the "command" factory turns into one
# when called with the name), or a callable returning either; a callable
# that builds a parser and calls parse_args is intercepted and the parser
# captured before anything runs. Importing the module and calling a
# factory runs the program's code: walk only code you would run.
#
# The walker reports raw facts (actions, types, nargs, dests, defaults,
# callbacks); the Go side decides what is representable.

import collections.abc
import contextlib
import copy
import importlib
import io
import optparse
import sys


class _Captured(BaseException):
    # BaseException, so that a program's `except Exception` cannot swallow it.
    def __init__(self, parser):
        super().__init__("parser captured")
        self.parser = parser


@contextlib.contextmanager
def _intercept():
    saved = optparse.OptionParser.parse_args

    def capture(self, *args, **kwargs):
        raise _Captured(self)

    optparse.OptionParser.parse_args = capture
    try:
        yield
    finally:
        optparse.OptionParser.parse_args = saved


def _as_parser(x):
    if isinstance(x, optparse.OptionParser):
        return x
    p = getattr(x, "parser", None)
    if isinstance(p, optparse.OptionParser):
        return p
    return None


def _resolve(name, what):
    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        raise WalkError("bad_target", "%s %r is not MODULE:OBJECT" % (what, name))
    try:
        module = importlib.import_module(module_name)
    except _Captured:
        raise
    except BaseException as e:
        raise WalkError("import", "cannot import module %s: %s: %s" % (module_name, type(e).__name__, e))
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise WalkError("no_factory", "module %s has no attribute %s" % (module_name, attr))
        obj = getattr(obj, part)
    return obj


def _call(target, fn, *args):
    """Calls fn, capturing a parser whose parse_args it calls."""
    try:
        with _intercept():
            return fn(*args)
    except _Captured as c:
        return c.parser
    except WalkError:
        raise
    except SystemExit as e:
        raise WalkError("factory", "%s exited (status %r) before returning a parser" % (target, e.code))
    except BaseException as e:
        raise WalkError("factory", "%s raised %s: %s" % (target, type(e).__name__, e))


def get_root(target, command):
    """Returns (parser, None) for one parser, or (None, [(name, summary, parser)]) for a table."""
    saved_argv = sys.argv
    sys.argv = [target.partition(":")[0].rsplit(".", 1)[-1]]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            obj = _resolve(target, "target")
            if _as_parser(obj) is None and not isinstance(obj, collections.abc.Mapping):
                if not callable(obj):
                    raise WalkError("not_parser", "%s is %s, not an optparse.OptionParser, a command table or a factory" % (target, type(obj).__name__))
                obj = _call(target, obj)
            p = _as_parser(obj)
            if p is not None:
                return p, None
            if not isinstance(obj, collections.abc.Mapping):
                raise WalkError("not_parser", "%s gave %s, not an optparse.OptionParser or a command table" % (target, type(obj).__name__))
            factory = _resolve(command, "command factory") if command else None
            table = []
            for name, entry in obj.items():
                if not isinstance(name, str):
                    raise WalkError("not_parser", "%s: command name %r is not a string" % (target, name))
                made = None
                p = _as_parser(entry)
                if p is None and factory is not None:
                    made = _call("%s(%r)" % (command, name), factory, name)
                    p = _as_parser(made)
                elif p is None and callable(entry):
                    made = _call("%s[%r]" % (target, name), entry)
                    p = _as_parser(made)
                if p is None:
                    raise WalkError("not_parser", "%s: command %r gave %s, not an optparse.OptionParser (name a command factory?)" % (target, name, type(made if made is not None else entry).__name__))
                summary = None
                for holder in (entry, made, p):
                    s = getattr(holder, "summary", None)
                    if isinstance(s, str) and s.strip():
                        summary = s
                        break
                table.append((name, summary, p))
            return None, table
    finally:
        sys.argv = saved_argv


# --- describing a parser -------------------------------------------------

_ACTIONS = set(optparse.Option.ACTIONS)
_TYPES = set(optparse.Option.TYPES)
# Methods whose override in an Option subclass changes what a word becomes.
_OVERRIDABLE = ("take_action", "process", "convert_value", "check_value")


def _value(v):
    ok, j = _jsonable(v)
    return {"value": j} if ok else {"unjsonable": j}


def describe_option(parser, o):
    cls = type(o)
    standard_checker = True
    if o.type is not None and o.type in optparse.Option.TYPE_CHECKER:
        standard_checker = cls.TYPE_CHECKER.get(o.type) is optparse.Option.TYPE_CHECKER.get(o.type)
    out = {
        "short": list(o._short_opts),
        "long": list(o._long_opts),
        "action": o.action,
        "known_action": o.action in _ACTIONS,
        "type": o.type,
        "known_type": o.type is None or (o.type in _TYPES and standard_checker),
        "dest": o.dest,
        "nargs": o.nargs,
        "choices": list(o.choices) if o.choices is not None else None,
        "const": _value(o.const),
        "default": _value(parser.defaults.get(o.dest)) if o.dest else None,
        "help": o.help,
        "suppressed": o.help == optparse.SUPPRESS_HELP,
        "metavar": o.metavar,
        "callback": _qualname(o.callback) if o.action == "callback" else None,
        "class": _qualname(cls),
        "overrides": [m for m in _OVERRIDABLE if getattr(cls, m, None) is not getattr(optparse.Option, m)],
    }
    if out["choices"] is not None:
        ok, j = _jsonable(out["choices"])
        out["choices"] = j if ok else None
        if not ok:
            out["unjsonable_choices"] = True
    return out


def describe(parser):
    desc = parser.description
    return {
        "prog": parser.get_prog_name(),
        "description": desc if isinstance(desc, str) else None,
        "interspersed": bool(parser.allow_interspersed_args),
        "options": [describe_option(parser, o) for o in parser._get_all_options()],
    }


# --- modes ----------------------------------------------------------------

def walk(request):
    results = []
    command = request.get("command") or ""
    for target in request["targets"]:
        try:
            root, table = get_root(target, command)
            if table is None:
                results.append({"target": target, "ok": True, "root": describe(root), "commands": None})
            else:
                cmds = [{"name": n, "summary": s, "parser": describe(p)} for n, s, p in table]
                results.append({"target": target, "ok": True, "root": None, "commands": cmds})
        except WalkError as e:
            results.append({"target": target, "ok": False, "kind": e.kind, "message": e.message})
    return {"results": results}


def parse(request):
    roots = {}
    results = []
    for req in request["requests"]:
        key = (req["target"], req.get("command") or "")
        try:
            if key not in roots:
                roots[key] = get_root(*key)
            root, table = roots[key]
            path = req.get("path") or []
            if table is not None:
                root = dict((n, p) for n, _, p in table)[path[0]]
        except WalkError as e:
            results.append({"ok": False, "error": "%s: %s" % (e.kind, e.message)})
            continue
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
                # A fresh copy of the defaults: optparse appends to a
                # default list in place, and one process parses many argvs
                # here where a program parses one.
                values, args = root.parse_args(list(req["argv"] or []), values=copy.deepcopy(root.get_default_values()))
            out = {}
            for k, v in vars(values).items():
                ok, j = _jsonable(v)
                out[k] = j if ok else {"unjsonable": j}
            results.append({"ok": True, "values": out, "args": list(args)})
        except SystemExit:
            results.append({"ok": False, "error": err.getvalue().strip()[-2000:]})
    return {"results": results}


serve({"walk": walk, "parse": parse})
