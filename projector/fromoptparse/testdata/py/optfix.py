"""Fixtures for the fromoptparse tests: optparse parsers of every shape the
reader translates, and of the shapes it refuses."""

import optparse
import sys


def rich():
    p = optparse.OptionParser(prog="rich", description="Every action optparse defines.\nSecond line.")
    p.add_option("-n", "--name", help="a string")
    p.add_option("-c", "--count", type="int", default=3, help="an int with a default")
    p.add_option("--big", type="long")
    p.add_option("--ratio", type="float")
    p.add_option("--mode", type="choice", choices=["fast", "slow"], default="fast")
    p.add_option("--pair", nargs=2, help="two words")
    p.add_option("--nums", type="int", nargs=3)
    p.add_option("-t", "--tag", action="append", dest="tags", help="repeatable")
    p.add_option("--point", action="append", nargs=2, type="float", dest="points")
    p.add_option("--inc", action="append", default=[], help="repeatable with an empty default")
    p.add_option("-q", "--quiet", action="store_true")
    p.add_option("--no-color", action="store_false", dest="color", default=True)
    p.add_option("--level-max", action="store_const", const=9, dest="level")
    p.add_option("-a", action="append_const", const="A", dest="letters")
    p.add_option("-v", "--verbose", action="count")
    p.add_option("--hidden", help=optparse.SUPPRESS_HELP)
    p.add_option("--version-of", dest="version_of", metavar="FILE", help="names a file")
    return p


def shared():
    p = optparse.OptionParser(prog="shared")
    p.add_option("--user", action="store_true", dest="user_site")
    p.add_option("--no-user", action="store_false", dest="user_site")
    p.add_option("--cache", dest="cache")
    p.add_option("--no-cache", action="store_const", const="", dest="cache")
    return p


def _cb(option, opt, value, parser):
    setattr(parser.values, option.dest, value)


def callback():
    p = optparse.OptionParser(prog="callback")
    p.add_option("--plain")
    p.add_option("--cb", action="callback", callback=_cb, type="string", dest="cb")
    return p


class PathOption(optparse.Option):
    TYPES = optparse.Option.TYPES + ("path",)
    TYPE_CHECKER = dict(optparse.Option.TYPE_CHECKER, path=lambda o, opt, v: v)


def custom_type():
    p = optparse.OptionParser(prog="custom", option_class=PathOption)
    p.add_option("--where", type="path")
    p.add_option("--n", type="int")
    return p


class Tool:
    def __init__(self, name, summary):
        self.name, self.summary = name, summary
        self.parser = optparse.OptionParser(prog="tool " + name)
        self.parser.add_option("--force", action="store_true")
        if name == "get":
            self.parser.add_option("--key", type="choice", choices=["a", "b"])


TABLE = {"get": ("Get a thing.",), "put": ("Put a thing.",)}


def make(name):
    return Tool(name, TABLE[name][0])


def table():
    return {"get": make("get"), "put": make("put")}


def main():
    p = optparse.OptionParser(prog="mainstyle")
    p.add_option("--out")
    opts, args = p.parse_args()
    raise SystemExit("ran past parse_args")


def not_a_parser():
    return 42


def exits():
    sys.exit(3)


def two_values():
    p = optparse.OptionParser(prog="two")
    p.add_option("--a", dest="x")
    p.add_option("--b", dest="x")
    return p
