"""A small click CLI for `limcp inventory --click`: one clean command, one
with a custom type, one with a callback."""

import click


class Budget(click.ParamType):
    name = "budget"

    def convert(self, value, param, ctx):
        return float(value.rstrip("$"))


def _shout(ctx, param, value):
    return value.upper() if value else value


@click.group()
def cli():
    """A team tool."""


@cli.command()
@click.option("--to", required=True)
@click.argument("message")
def announce(to, message):
    """Post a message."""


@cli.command()
@click.option("--budget", type=Budget())
def spend(budget):
    """Spend a budget."""


@cli.command()
@click.option("--word", callback=_shout)
def shout(word):
    """Shout a word."""
