"""An HTTP client's parser (httpie's shape): an optional method word
before the URL, then request items. It prints what its own parser read,
as JSON, so a test sees exactly what a rendered argv meant to it."""
import argparse
import json
import sys


def build_parser():
    p = argparse.ArgumentParser(prog="req")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--format", choices=["json", "text", "table"], default="text")
    p.add_argument("--opts", nargs="*", help="options for the transport")
    p.add_argument("method", nargs="?", choices=["GET", "POST", "DELETE"])
    p.add_argument("url")
    p.add_argument("items", nargs="*")
    return p


if __name__ == "__main__":
    json.dump(vars(build_parser().parse_args()), sys.stdout, sort_keys=True)
