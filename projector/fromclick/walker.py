# The fromclick walker. Embedded in the Go package and run as
# `python3 -c <prelude + this source> MODE` (pywalk.Run; the prelude,
# projector/internal/pywalk/prelude.py, holds the protocol's main,
# WalkError and _jsonable), with a JSON request on stdin and a JSON answer
# on stdout.
#
# MODE "walk": {"targets": ["pkg.mod:object" | "pkg.mod:factory", ...]}
#   -> {"results": [{"target": ..., "ok": true, "command": COMMAND} |
#                   {"target": ..., "ok": false, "kind": ..., "message": ...}]}
# MODE "parse" (used by the round-trip tests):
#   {"requests": [{"target": ..., "argv": [...]}, ...]}
#   -> {"results": [{"ok": true, "path": [...], "params": {...}, "unexposed": [...]} |
#                   {"ok": false, "error": ...}]}
#
# A target names a click.Command (a Group included) or a Typer app; any
# other callable is a factory, called without arguments, that returns one.
# Importing the module and calling a factory runs the program's code: walk
# only code you would run.
#
# The walker reports raw facts (parameter classes, nargs, types, defaults,
# callbacks); the Go side decides what is representable. Commands of a
# group are listed through the group's own list_commands/get_command, so
# lazily loaded and custom groups walk as the program itself resolves them.

import contextlib
import enum
import importlib
import io
import json
import os
import pathlib
import sys

try:
    import click
except BaseException as e:  # reported per target: the program cannot be walked without click
    click = None
    CLICK_IMPORT_ERROR = "%s: %s" % (type(e).__name__, e)

# click 8.3 marks "no value" with a sentinel instead of None.
try:
    from click._utils import UNSET
except BaseException:
    UNSET = object()


def _is_typer(obj):
    cls = type(obj)
    return cls.__name__ == "Typer" and getattr(cls, "__module__", "").startswith("typer")


def _as_command(obj):
    if click is not None and isinstance(obj, click.Command):
        return obj
    if _is_typer(obj):
        import typer.main
        return typer.main.get_command(obj)
    return None


def get_command(target):
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise WalkError("bad_target", "target %r is not MODULE:OBJECT or MODULE:FACTORY" % target)
    if click is None:
        raise WalkError("import", "cannot import click: %s" % CLICK_IMPORT_ERROR)
    saved_argv = sys.argv
    sys.argv = [module_name.rsplit(".", 1)[-1]]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            try:
                module = importlib.import_module(module_name)
            except BaseException as e:
                raise WalkError("import", "cannot import module %s: %s: %s" % (module_name, type(e).__name__, e))
            obj = module
            for part in attr.split("."):
                if not hasattr(obj, part):
                    raise WalkError("no_factory", "module %s has no attribute %s" % (module_name, attr))
                obj = getattr(obj, part)
            try:
                cmd = _as_command(obj)
                if cmd is not None:
                    return cmd
                if not callable(obj):
                    raise WalkError("not_parser", "%s is %s, not a click command, a Typer app or a factory" % (target, type(obj).__name__))
                result = obj()
                cmd = _as_command(result)
            except WalkError:
                raise
            except SystemExit as e:
                raise WalkError("factory", "%s exited (status %r) before returning a command" % (target, e.code))
            except BaseException as e:
                raise WalkError("factory", "%s raised %s: %s" % (target, type(e).__name__, e))
            if cmd is None:
                raise WalkError("not_parser", "%s returned %s, not a click command or a Typer app" % (target, type(result).__name__))
            return cmd
    finally:
        sys.argv = saved_argv


# --- describing a command ---------------------------------------------------

def _class_name(cls):
    module = getattr(cls, "__module__", "")
    name = getattr(cls, "__qualname__", getattr(cls, "__name__", repr(cls)))
    return name if module in ("builtins", "") else module + "." + name


def _value(v):
    if v is UNSET:
        return {"unset": True}
    ok, j = _jsonable(v)
    return {"value": j} if ok else {"unjsonable": j}


# The click types whose conversion the Go side knows. A subclass that
# overrides convert is reported as its own class: its meaning is its own.
def _known_type(t):
    # Most specific first: IntRange is an IntParamType, for one.
    table = [
        ("int_range", "IntRange"), ("float_range", "FloatRange"), ("choice", "Choice"),
        ("path", "Path"), ("file", "File"), ("datetime", "DateTime"), ("tuple", "Tuple"),
        ("string", "StringParamType"), ("int", "IntParamType"), ("float", "FloatParamType"),
        ("bool", "BoolParamType"), ("uuid", "UUIDParameterType"), ("unprocessed", "UnprocessedParamType"),
    ]
    for known, cls_name in table:
        base = getattr(click.types, cls_name, None)
        if base is None or not isinstance(t, base):
            continue
        cls = type(t)
        if cls is base:
            return known, False
        # A subclass: known only if it leaves conversion to the base
        # (and, for ranges, the clamping that conversion calls).
        overrides = any(name in vars(c) for c in cls.__mro__ if c is not base and issubclass(c, base)
                        for name in ("convert", "_clamp"))
        return known, overrides
    return None, False


def _type_desc(t):
    known, overrides = _known_type(t)
    d = {"class": _class_name(type(t)), "name": getattr(t, "name", None), "known": known, "overrides_convert": overrides}
    if known in ("int_range", "float_range"):
        d.update({"min": _value(t.min)["value"] if _jsonable(t.min)[0] else None,
                  "max": _value(t.max)["value"] if _jsonable(t.max)[0] else None,
                  "min_open": bool(t.min_open), "max_open": bool(t.max_open), "clamp": bool(t.clamp)})
    elif known == "choice":
        values, enum_names, ok = [], False, True
        for c in t.choices:
            if isinstance(c, enum.Enum):
                if not hasattr(t, "normalize_choice"):
                    # Before click 8.2.0, Choice compares the word with
                    # the members themselves: no word matches.
                    ok = False
                    break
                values.append(c.name)
                enum_names = True
                continue
            good, j = _jsonable(c)
            if not good or isinstance(j, list):
                ok = False
                break
            values.append(j)
        d["choices"] = values if ok else None
        d["choices_repr"] = None if ok else repr(t.choices)[:200]
        d["enum_names"] = enum_names
        d["case_sensitive"] = bool(getattr(t, "case_sensitive", True))
    elif known == "path":
        d.update({"exists": bool(t.exists), "file_okay": bool(t.file_okay), "dir_okay": bool(t.dir_okay),
                  "readable": bool(t.readable), "writable": bool(t.writable), "allow_dash": bool(t.allow_dash),
                  "resolve_path": bool(t.resolve_path),
                  "path_type": None if t.type is None else _class_name(t.type) if isinstance(t.type, type) else repr(t.type)})
    elif known == "file":
        d["mode"] = t.mode
    elif known == "datetime":
        d["formats"] = list(t.formats)
    elif known == "tuple":
        d["types"] = [_type_desc(x) for x in t.types]
    return d


# Callbacks whose meaning is click's (or Typer's) own: help and version
# options (eager, print and exit, expose no value), the confirmation
# option (aborts unless given) and Typer's completion options.
def _unwrap(cb):
    # Typer wraps each parameter callback in a closure of its own
    # (typer.main.get_param_callback); name the function it wraps.
    q = _qualname(cb) or ""
    if q.startswith("typer.main.") and getattr(cb, "__closure__", None):
        for cell in cb.__closure__:
            try:
                inner = cell.cell_contents
            except ValueError:
                continue
            if callable(inner) and not isinstance(inner, type):
                return inner
    return cb


def _known_callback(cb):
    q = _qualname(cb) or ""
    if q.startswith("click."):
        if "help_option" in q or "get_help_option" in q or q.endswith("show_help"):
            return "help"
        if "version_option" in q:
            return "version"
        if "confirmation_option" in q:
            return "confirmation"
    if q.startswith("typer.") and (q.endswith("install_callback") or q.endswith("show_callback")):
        return "completion"
    return None


def _default_desc(ctx, param):
    d = param.default
    if d is UNSET:
        return {"unset": True}
    if callable(d):
        return {"callable": _qualname(d)}
    if d is None:
        return {"value": None}
    known, overrides = _known_type(param.type)
    # Conversion is what click does to a default before use; only types
    # whose conversion touches nothing outside are converted here (Path
    # may stat, File opens).
    if known in ("string", "int", "float", "bool", "int_range", "float_range", "choice", "unprocessed", "uuid") and not overrides:
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                d = param.type_cast_value(ctx, d)
        except BaseException as e:
            return {"unjsonable": "default %r does not convert: %s" % (param.default, e)}
        if isinstance(d, enum.Enum):
            d = d.name
        elif isinstance(d, (list, tuple)) and any(isinstance(x, enum.Enum) for x in d):
            d = [x.name if isinstance(x, enum.Enum) else x for x in d]
        elif known == "uuid" and d is not None:
            d = str(d)
    elif known in ("path", "file") and isinstance(d, os.PathLike):
        d = os.fspath(d)
    return _value(d)


def _param_desc(ctx, param, auto_envvar):
    is_option = isinstance(param, click.Option)
    help_text = getattr(param, "help", None)
    deprecated = getattr(param, "deprecated", False)
    d = {
        "param_type": "option" if is_option else "argument" if isinstance(param, click.Argument) else "other",
        "class": _class_name(type(param)),
        "name": param.name,
        "opts": list(param.opts),
        "secondary_opts": list(getattr(param, "secondary_opts", []) or []),
        "required": bool(param.required),
        "hidden": bool(getattr(param, "hidden", False)),
        "nargs": param.nargs,
        "multiple": bool(param.multiple),
        "count": bool(getattr(param, "count", False)),
        "is_flag": bool(getattr(param, "is_flag", False)),
        "is_bool_flag": bool(getattr(param, "is_bool_flag", False)),
        "flag_value": _value(getattr(param, "flag_value", None)),
        "flag_needs_value": bool(getattr(param, "_flag_needs_value", False)),
        "default": _default_desc(ctx, param),
        "envvar": bool(param.envvar) or (is_option and auto_envvar and getattr(param, "allow_from_autoenv", True)),
        "prompt": getattr(param, "prompt", None) is not None,
        "prompt_required": bool(getattr(param, "prompt_required", True)),
        "hide_input": bool(getattr(param, "hide_input", False)),
        "is_eager": bool(param.is_eager),
        "expose_value": bool(param.expose_value),
        "callback": _qualname(_unwrap(param.callback)),
        "callback_known": _known_callback(_unwrap(param.callback)),
        "help": help_text if isinstance(help_text, str) else None,
        "deprecated": deprecated if isinstance(deprecated, str) else bool(deprecated),
        "type": _type_desc(param.type),
        "metavar": param.metavar if isinstance(getattr(param, "metavar", None), str) else None,
    }
    return d


def _summary(cmd):
    try:
        text = cmd.get_short_help_str(limit=300)
    except BaseException:
        text = cmd.short_help or (cmd.help or "").strip().split("\n")[0]
    return text or ""


def _make_context(cmd, name, parent):
    extra = dict(getattr(cmd, "context_settings", {}) or {})
    extra.pop("obj", None)
    try:
        return click.Context(cmd, info_name=name, parent=parent, **extra)
    except BaseException:
        return click.Context(cmd, info_name=name, parent=parent)


def _is_group(cmd):
    return callable(getattr(cmd, "list_commands", None)) and callable(getattr(cmd, "get_command", None))


def describe(cmd, name, parent_ctx, path, seen, ancestors):
    ctx = _make_context(cmd, name, parent_ctx)
    auto = ctx.auto_envvar_prefix is not None
    try:
        prefixes = sorted(cmd.make_parser(ctx)._opt_prefixes)
    except BaseException:
        prefixes = ["-", "--"]
    deprecated = getattr(cmd, "deprecated", False)
    d = {
        "name": name,
        "class": _class_name(type(cmd)),
        "summary": _summary(cmd),
        "hidden": bool(getattr(cmd, "hidden", False)),
        "deprecated": deprecated if isinstance(deprecated, str) else bool(deprecated),
        "group": _is_group(cmd),
        "invoke_without_command": bool(getattr(cmd, "invoke_without_command", False)),
        "chain": bool(getattr(cmd, "chain", False)),
        "no_args_is_help": bool(getattr(cmd, "no_args_is_help", False)),
        "opt_prefixes": prefixes,
        "params": [_param_desc(ctx, p, auto) for p in cmd.params],
        "commands": None,
    }
    if not d["group"]:
        return d
    d["commands"] = []
    try:
        names = list(cmd.list_commands(ctx))
    except BaseException as e:
        d["list_error"] = "%s.list_commands raised %s: %s" % (d["class"], type(e).__name__, e)
        return d
    by_obj, order = {}, []
    for sub_name in names:
        try:
            sub = cmd.get_command(ctx, sub_name)
        except BaseException as e:
            d["commands"].append({"name": sub_name, "error": "get_command raised %s: %s" % (type(e).__name__, e)})
            continue
        if sub is None:
            d["commands"].append({"name": sub_name, "error": "get_command returned None for a listed name"})
            continue
        key = id(sub)
        if key in by_obj:
            by_obj[key]["aliases"].append(sub_name)
            continue
        entry = {"name": sub_name, "aliases": [], "obj": sub}
        by_obj[key] = entry
        order.append(entry)
        d["commands"].append(entry)
    for entry in order:
        sub = entry.pop("obj")
        sub_path = path + [entry["name"]]
        if sub is cmd or any(sub is a for a in ancestors):
            entry["cycle"] = True
        elif id(sub) in seen:
            entry["same_as"] = seen[id(sub)]
        else:
            seen[id(sub)] = sub_path
            entry["command"] = describe(sub, entry["name"], ctx, sub_path, seen, ancestors + [cmd])
    return d


# --- modes ------------------------------------------------------------------

def walk(request):
    results = []
    for target in request["targets"]:
        try:
            cmd = get_command(target)
            with contextlib.redirect_stdout(sys.stderr):
                desc = describe(cmd, cmd.name or target.partition(":")[0].rsplit(".", 1)[-1], None, [], {id(cmd): []}, [])
            results.append({"target": target, "ok": True, "command": desc})
        except WalkError as e:
            results.append({"target": target, "ok": False, "kind": e.kind, "message": e.message})
        except BaseException as e:
            results.append({"target": target, "ok": False, "kind": "factory",
                            "message": "describing %s raised %s: %s" % (target, type(e).__name__, e)})
    return {"results": results}


def _plain(v):
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if v.__class__.__name__ == "UUID":
        return str(v)
    if hasattr(v, "isoformat") and not isinstance(v, (str, int, float)):
        return v.isoformat()
    return v


def _name_files(cmd, seen=None):
    # For the round trip only: click.File opens (or creates) the named
    # file and click.Path(exists=True) stats it; what the round trip checks
    # is the string click hands to them, so File becomes STRING and Path
    # stops looking at the filesystem (its path_type is kept): whether a
    # file exists, or is a directory, is the CLI's to refuse at run time.
    seen = set() if seen is None else seen
    if id(cmd) in seen:
        return
    seen.add(id(cmd))
    for p in cmd.params:
        t = p.type
        if isinstance(t, click.File):
            p.type = click.STRING
        elif isinstance(t, click.Path):
            t.exists, t.readable, t.writable, t.resolve_path = False, False, False, False
            t.file_okay, t.dir_okay = True, True  # what exists on this machine is not the round trip's
    if _is_group(cmd):
        ctx = _make_context(cmd, cmd.name, None)
        for n in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, n)
            if sub is not None:
                _name_files(sub, seen)


def parse_one(root, argv):
    # What click's own Group.invoke does, short of invoking: parse the
    # root, resolve each subcommand and parse its arguments.
    ctx = root.make_context(root.name or "prog", list(argv))
    cmd, path = root, []
    while _is_group(cmd):
        args = list(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", None) or []) + list(ctx.args)
        if not args:
            break
        name, sub, rest = cmd.resolve_command(ctx, args)
        ctx = sub.make_context(name, rest, parent=ctx)
        cmd = sub
        path.append(name)
    if ctx.args:
        raise click.UsageError("unexpected extra arguments %r" % (ctx.args,))
    unexposed = [p.name for p in cmd.params if not p.expose_value]
    params = {}
    for k, v in ctx.params.items():
        ok, j = _jsonable(_plain(v))
        params[k] = j if ok else {"unjsonable": j}
    return path, params, unexposed


def parse(request):
    roots = {}
    results = []
    for req in request["requests"]:
        target = req["target"]
        try:
            if target not in roots:
                roots[target] = get_command(target)
                _name_files(roots[target])
            root = roots[target]
        except WalkError as e:
            results.append({"ok": False, "error": "%s: %s" % (e.kind, e.message)})
            continue
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
                path, params, unexposed = parse_one(root, req["argv"] or [])
            results.append({"ok": True, "path": path, "params": params, "unexposed": unexposed})
        except click.exceptions.Exit as e:
            results.append({"ok": False, "error": "exited %r: %s" % (getattr(e, "exit_code", None), err.getvalue().strip()[-2000:])})
        except click.ClickException as e:
            results.append({"ok": False, "error": "%s: %s" % (type(e).__name__, e.format_message())})
        except BaseException as e:
            results.append({"ok": False, "error": "%s: %s %s" % (type(e).__name__, e, err.getvalue().strip()[-2000:])})
    return {"results": results}


serve({"walk": walk, "parse": parse})
