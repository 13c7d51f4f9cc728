"""kv: a small click key-value CLI with a --json machine mode at the root.

The click fixture verbsurface's end-to-end tests front: state is one JSON
file under $KV_HOME (or --home), every command prints one machine result
with --json, and a command line that does not parse is a usage_error. It
has what a click front must handle: a Choice, an option taking pairs
(multiple=True, nargs=2), a callback and a custom type the operator vouches
for in the YAML, and a fenced admin command.
"""
import json
import os
import sys

import click


def result(data=None, error=None):
    if "--json" in sys.argv[1:]:
        r = {"result_version": 1, "ok": error is None}
        if error is None:
            r["data"] = data
        else:
            r["error"] = error
        print(json.dumps(r))
    else:
        print(error["message"] if error else json.dumps(data, indent=2))
    sys.exit(0 if error is None else 1)


def check_ttl(ctx, param, value):
    """Validates only: the value comes back unchanged."""
    if value is not None and value > 86400:
        raise click.BadParameter("at most a day")
    return value


class KeyName(click.ParamType):
    """A key: one plain string without spaces."""

    name = "key"

    def convert(self, value, param, ctx):
        if " " in value:
            self.fail("a key has no spaces", param, ctx)
        return value


def load(home):
    path = os.path.join(home, "kv.json")
    if os.path.exists(path):
        with open(path) as f:
            return path, json.load(f)
    return path, {}


def save(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


@click.group()
@click.option("--json", "as_json", is_flag=True, help="print one machine result")
@click.option("--home", envvar="KV_HOME", default=".", help="state directory")
@click.pass_context
def cli(ctx, as_json, home):
    """Keep values."""
    ctx.obj = home


@cli.command("set")
@click.argument("key", type=KeyName())
@click.argument("value")
@click.option("--kind", type=click.Choice(["text", "number"]), default="text", help="how to read the value")
@click.option("--label", "labels", nargs=2, multiple=True, help="a label NAME VALUE, repeatable")
@click.option("--ttl", type=int, callback=check_ttl, help="seconds to keep it")
@click.pass_obj
def set_(home, key, value, kind, labels, ttl):
    """Set a key."""
    path, data = load(home)
    if kind == "number":
        try:
            value = float(value)
        except ValueError:
            result(error={"code": "not_a_number", "message": "%r is not a number" % value, "details": {"value": value}})
    data[key] = {"value": value, "labels": [list(p) for p in labels], "ttl": ttl}
    save(path, data)
    result({"key": key, **data[key]})


@cli.command("get")
@click.argument("key", type=KeyName())
@click.pass_obj
def get(home, key):
    """Get a key."""
    _, data = load(home)
    if key not in data:
        result(error={"code": "unknown_key", "message": "no key %s" % key, "details": {"key": key}})
    result({"key": key, **data[key]})


@cli.group()
def admin():
    """Administration."""


@admin.command("reset")
@click.pass_obj
def reset(home):
    """Delete every key."""
    path, _ = load(home)
    save(path, {})
    result({"reset": True})


def main():
    try:
        cli.main(standalone_mode=False)
    except click.UsageError as e:
        if "--json" in sys.argv[1:]:
            print(json.dumps({"result_version": 1, "ok": False,
                              "error": {"code": "usage_error", "message": e.format_message(), "details": {}}}))
            sys.exit(2)
        e.show()
        sys.exit(2)
    except click.ClickException as e:
        e.show()
        sys.exit(1)


if __name__ == "__main__":
    main()
