"""links: a small argparse program that writes, reads and lints files.

The fixture of the link attacks in verbsurface's end-to-end tests. It does
what real programs do with the paths they are given: write creates or
replaces its file (following a symlink there, as open() does), cat prints a
file or every file under a directory (following links inside it, as a
linter does), lint names each file it was given.
"""
import argparse
import os
import sys


def build_parser():
    p = argparse.ArgumentParser(prog="links", description="Write, read and lint files.")
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write text to a file")
    w.add_argument("out", help="the file to write")
    w.add_argument("text", help="what to write")
    c = sub.add_parser("cat", help="print a file, or every file under a directory")
    c.add_argument("path", help="a file or a directory")
    lint = sub.add_parser("lint", help="lint files")
    lint.add_argument("files", nargs="+", help="the files to lint")
    return p


def main():
    args = build_parser().parse_args()
    if args.command == "write":
        with open(args.out, "w") as f:
            f.write(args.text)
        print("wrote", args.out)
    elif args.command == "cat":
        if os.path.isdir(args.path):
            for top, _, names in sorted(os.walk(args.path)):
                for n in sorted(names):
                    with open(os.path.join(top, n)) as f:
                        sys.stdout.write(f.read())
        else:
            with open(args.path) as f:
                sys.stdout.write(f.read())
    elif args.command == "lint":
        for name in args.files:
            print("linted", name)


if __name__ == "__main__":
    main()
