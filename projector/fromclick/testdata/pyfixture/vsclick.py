"""The fromclick test fixture: one click program with a command per row of
the mapping (see ../../doc.go), walked, projected (goldens) and round-tripped
through click's own parsing."""

import enum

import click


class Color(enum.Enum):
    red = "r"
    green = "g"


def _validate(ctx, param, value):
    return value


class Hex(click.ParamType):
    """A custom type: the schema cannot say what it accepts."""
    name = "hex"

    def convert(self, value, param, ctx):
        return int(value, 16)


class Loud(click.Path):
    def convert(self, value, param, ctx):
        return super().convert(value, param, ctx).upper()


@click.group(help="The fromclick fixture.")
@click.option("--verbose", "-v", count=True, help="more output")
def cli(verbose):
    pass


@cli.command(help="Scalar types, flags and defaults.")
@click.option("--name", help="a string")
@click.option("-n", "--num", type=int, default=3, help="an int")
@click.option("--ratio", type=float, help="a float")
@click.option("--enabled", type=bool, help="a BOOL value")
@click.option("--force", is_flag=True, help="a flag")
@click.option("--shout/--no-shout", default=True, help="a flag pair")
@click.option("--cache/--no-cache", " /-C", default=False)
@click.option("--upper", "mode", flag_value="upper", help="shared dest, one value")
@click.option("--lower", "mode", flag_value="lower", default=True)
@click.option("--level", type=int, flag_value=5, is_flag=False, default=1, help="an option with an optional value")
@click.option("--tag", is_flag=False, flag_value="all", help="optional string value")
@click.option("-q", "quiet", count=True)
@click.option("--when", default=lambda: "now", help="a callable default")
@click.option("-x", "ex", help="short only")
@click.option("--secret-name", hidden=True)
@click.option("--token", envvar="VSCLICK_TOKEN", default="t0", help="envvar backed")
@click.option("--id", "ident", type=click.UUID)
def types(**kw):
    pass


@cli.command()
@click.option("--item", multiple=True, help="repeatable")
@click.option("--num", type=int, multiple=True, default=[1, 2])
@click.option("--point", nargs=2, type=float, help="two floats")
@click.option("--span", type=click.Tuple([str, str]))
def arrays(**kw):
    """Multiple, nargs and tuples."""


@cli.command()
@click.option("--pair", type=(str, int), help="mixed tuple")
@click.option("--entry", type=(str, click.Choice(["int", "text"])), multiple=True, help="repeated name and kind")
@click.option("--box", type=(click.IntRange(0, 10), float, click.UUID), default=(1, 2.5, "12345678-1234-1234-1234-123456789abc"))
def mixed(**kw):
    """Tuples of mixed types."""


@cli.command()
@click.option("--attach", type=(str, click.Path()), multiple=True)
def tuplepath(attach):
    """A path inside a Tuple: unavailable."""


@cli.command()
@click.option("--pairs", nargs=2, multiple=True)
@click.option("--triple", type=(int, int, int), multiple=True, default=[(1, 2, 3)], help="repeated int triples")
@click.option("--grid", nargs=2, type=float, multiple=True)
@click.option("-k", "kv", nargs=2, multiple=True, help="a short option taking pairs")
def pairs(**kw):
    """Repeated tuples."""


@cli.command()
@click.option("--tag", multiple=True, required=True)
@click.option("--kv", nargs=2, multiple=True, required=True)
def needs(**kw):
    """Required multiple options: at least one occurrence each."""


@cli.command()
@click.option("--color", type=click.Choice(["red", "green", "Blue"]), default="red")
@click.option("--icolor", type=click.Choice(["red", "green"], case_sensitive=False))
@click.option("--size", type=click.IntRange(1, 10), help="closed")
@click.option("--open", "openr", type=click.IntRange(0, 10, min_open=True, max_open=True))
@click.option("--clamped", type=click.IntRange(0, 5, clamp=True))
@click.option("--frac", type=click.FloatRange(0, 1, min_open=True))
@click.option("--low", type=click.FloatRange(max=-1.5))
@click.option("--when", type=click.DateTime())
@click.option("--day", type=click.DateTime(["%Y-%m-%d"]))
def choices(**kw):
    """Choices, ranges and dates."""


@cli.command()
@click.option("--src", type=click.Path(exists=True, dir_okay=False), required=True)
@click.option("--out", type=click.Path(writable=True))
@click.option("--dir", "workdir", type=click.Path(file_okay=False))
@click.option("--log", type=click.File("w"))
@click.option("--conf", type=click.File("rb"), default="-")
@click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True))
def paths(**kw):
    """Paths and files."""


@cli.command(name="args")
@click.argument("first")
@click.argument("second", type=int)
@click.argument("rest", nargs=-1)
@click.argument("last")
def args_(**kw):
    """Required arguments around a variadic one."""


@cli.command()
@click.argument("src")
@click.argument("dst", required=False)
@click.argument("extra", required=False, type=int)
def optional(**kw):
    """Optional arguments, filled left to right."""


@cli.command()
@click.argument("first", required=False)
@click.argument("second")
def leading(**kw):
    """An optional argument before a required one."""


@cli.command(name="more")
@click.argument("files", nargs=-1, required=True)
@click.option("--mode", type=click.Choice(["a", "b"]), required=True)
def more(**kw):
    """One or more files and a required option."""


@cli.command(deprecated=True)
@click.option("--x")
def old(x):
    """An old command."""


@cli.command(hidden=True)
def secret():
    """Hidden."""


@cli.group()
def sub():
    """A nested group (dispatch only)."""


@sub.command(name="list")
@click.option("--all", "all_", is_flag=True)
def sub_list(all_):
    """List things."""


sub.add_command(sub_list, name="ls")


@sub.group(invoke_without_command=True)
@click.option("--depth", type=int, default=0)
def deep(depth):
    """A runnable nested group."""


@deep.command()
@click.argument("target")
def leaf(target):
    """A leaf under a runnable group."""


@cli.group()
@click.argument("ns")
def scoped(ns):
    """A group that takes an argument before its subcommands."""


@scoped.command()
def inner():
    """Unreachable without the group's argument."""


@cli.command()
@click.option("--hexval", type=Hex())
def custom(hexval):
    """A custom ParamType."""


@cli.command()
@click.option("--loud", type=Loud())
def loudpath(loud):
    """A click.Path subclass that converts."""


@cli.command()
@click.option("--v", callback=_validate)
def callback(v):
    """A callback the walker cannot read."""


@cli.command()
@click.option("--password", prompt=True, hide_input=True)
def login(password):
    """A hidden-input prompt."""


@cli.command()
@click.option("--who", prompt="Who")
@click.confirmation_option(prompt="Sure?")
def greet(who):
    """A prompt (given, never asked) and a confirmation."""


def _show(ctx, param, value):
    if value:
        click.echo("config")
        ctx.exit()


@cli.command()
@click.option("--show-config", is_flag=True, is_eager=True, expose_value=False, callback=_show)
@click.option("--n", type=int)
def eager(n):
    """An eager option that is not help or version."""


@cli.command(no_args_is_help=True)
@click.option("--a")
@click.option("--b", type=int)
def needy(a, b):
    """Help instead of running when no argument is given."""


@cli.command()
@click.version_option("1.0")
@click.option("--color", type=click.Choice(Color))
def versioned(color):
    """A version option and enum choices."""


def build():
    """A factory target."""
    return cli


def broken():
    """A factory that raises."""
    raise RuntimeError("boom")


def hang():
    """A factory that starts a process and never returns (the time-limit test)."""
    import os
    import subprocess
    import time

    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["VSCLICK_PIDFILE"], "w") as f:
        f.write(str(child.pid))
    time.sleep(300)
