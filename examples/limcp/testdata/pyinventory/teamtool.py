"""A small argparse CLI for `limcp inventory --argparse` tests.

Most of it projects; two commands carry what the projector refuses to
describe: an unknown Action subclass and non-scalar type callables.
"""
import argparse


class Shout(argparse.Action):
    """An Action class argparse does not define: its effect is unknowable."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values.upper())


def parse_budget(text):
    """A type callable that is not a plain scalar conversion."""
    return float(text.rstrip("$"))


def build():
    parser = argparse.ArgumentParser(prog="teamtool")
    sub = parser.add_subparsers(dest="command", required=True)

    deploy = sub.add_parser("deploy", aliases=["ship"], help="deploy a service")
    deploy.add_argument("service")
    deploy.add_argument("--replicas", type=int, default=1)
    deploy.add_argument("--region", choices=["eu", "us"], default="eu")
    deploy.add_argument("--dry-run", action="store_true")

    status = sub.add_parser("status", help="show a service's status")
    status.add_argument("service")
    status.add_argument("--tag", action="append")

    announce = sub.add_parser("announce", help="post a message")
    announce.add_argument("--message", action=Shout)

    spend = sub.add_parser("spend", help="record spending")
    spend.add_argument("--budget", type=parse_budget)
    spend.add_argument("--receipt", type=argparse.FileType("r"))
    return parser


def not_a_parser():
    return {"prog": "teamtool"}
