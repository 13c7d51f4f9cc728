"""Parsers whose commands are unrepresentable only for how their parameters
sit together, for ExcludeFlags' second look (projector.ExcludeParams)."""
import argparse


def build():
    parser = argparse.ArgumentParser(prog="conflict")
    sub = parser.add_subparsers(dest="command", required=True)

    dest = sub.add_parser("dest", help="two value options store to one dest")
    dest.add_argument("--level", type=int)
    dest.add_argument("--verbosity", dest="level", type=int, default=3)

    pos = sub.add_parser("pos", help="two variable positionals")
    pos.add_argument("srcs", nargs="*")
    pos.add_argument("extra", nargs="*")

    mixed = sub.add_parser("mixed", help="a shared dest, and a hidden positional before another")
    mixed.add_argument("--a", dest="x")
    mixed.add_argument("--b", dest="x")
    mixed.add_argument("secret", nargs="?", help=argparse.SUPPRESS)
    mixed.add_argument("name")
    return parser
