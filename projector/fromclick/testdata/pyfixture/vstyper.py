"""The fromclick Typer fixture: a Typer app, walked through the click command
Typer builds from it."""

import enum
import pathlib
from typing import List, Optional, Tuple

import typer

app = typer.Typer(help="The Typer fixture.")
users = typer.Typer(help="Manage users.")
app.add_typer(users, name="users")


class Shade(str, enum.Enum):
    light = "light"
    dark = "dark"


@app.command()
def hello(
    name: str = typer.Argument(..., help="who to greet"),
    count: int = typer.Option(1, min=1, max=5, help="how many times"),
    shade: Shade = typer.Option(Shade.light),
    formal: bool = typer.Option(False, help="a --formal/--no-formal pair"),
    ratio: float = typer.Option(0.5, min=0.0, max=1.0),
    out: Optional[pathlib.Path] = typer.Option(None, dir_okay=False),
    tags: List[str] = typer.Option([], "--tag"),
    point: Tuple[int, int] = typer.Option((0, 0)),
):
    """Say hello."""


@users.command("add")
def users_add(
    login: str,
    admin: bool = typer.Option(False, "--admin"),
    groups: Optional[List[str]] = typer.Argument(None),
):
    """Add a user."""


@users.command("remove", deprecated=True)
def users_remove(login: str, force: bool = typer.Option(False, "--force", "-f")):
    """Remove a user."""


if __name__ == "__main__":
    app()
