"""notes: a small argparse notes CLI with a --json machine mode at the root.

The fixture verbsurface's end-to-end tests front: state is one JSON file
under $NOTES_HOME (or --home), every command prints one machine result
with --json, and a command line that does not parse is a usage_error.
"""
import argparse
import json
import os
import sys


class MachineParser(argparse.ArgumentParser):
    """Reports parse errors as a machine result when --json is on."""

    def error(self, message):
        if "--json" in sys.argv[1:]:
            print(json.dumps({"result_version": 1, "ok": False,
                              "error": {"code": "usage_error", "message": message,
                                        "details": {"command": self.prog}}}))
            sys.exit(2)
        super().error(message)


def build_parser():
    p = MachineParser(prog="notes", description="Keep notes.")
    p.add_argument("--json", action="store_true", help="print one machine result")
    p.add_argument("--home", help="state directory (default $NOTES_HOME)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=MachineParser)
    add = sub.add_parser("add", help="add a note")
    add.add_argument("text", help="the note")
    add.add_argument("--priority", choices=["low", "high"], default="low", help="how urgent")
    ls = sub.add_parser("list", aliases=["ls"], help="list notes")
    ls.add_argument("--limit", type=int, default=10, help="at most this many")
    show = sub.add_parser("show", help="show one note")
    show.add_argument("id", type=int, help="the note id")
    rm = sub.add_parser("rm", help="remove a note")
    rm.add_argument("id", type=int, help="the note id")
    admin = sub.add_parser("admin", help="administration")
    asub = admin.add_subparsers(dest="admin_command", required=True, parser_class=MachineParser)
    asub.add_parser("reset", help="delete every note")
    return p


def main():
    args = build_parser().parse_args()
    home = args.home or os.environ.get("NOTES_HOME") or "."
    path = os.path.join(home, "notes.json")
    notes = []
    if os.path.exists(path):
        with open(path) as f:
            notes = json.load(f)

    def out(data=None, error=None):
        if args.json:
            r = {"result_version": 1, "ok": error is None}
            if error is None:
                r["data"] = data
            else:
                r["error"] = error
            print(json.dumps(r))
        else:
            print(error["message"] if error else json.dumps(data, indent=2))
        sys.exit(0 if error is None else 1)

    def save():
        with open(path, "w") as f:
            json.dump(notes, f)

    if args.command == "add":
        note = {"id": max([n["id"] for n in notes], default=0) + 1, "text": args.text, "priority": args.priority}
        notes.append(note)
        save()
        out(note)
    if args.command in ("list", "ls"):
        out({"notes": notes[: args.limit]})
    if args.command in ("show", "rm"):
        hit = [n for n in notes if n["id"] == args.id]
        if not hit:
            out(error={"code": "unknown_id", "message": "no note %d" % args.id, "details": {"id": args.id}})
        if args.command == "rm":
            notes.remove(hit[0])
            save()
        out(hit[0])
    if args.command == "admin":
        notes.clear()
        save()
        out({"reset": True})


if __name__ == "__main__":
    main()
