"""jobs: a small argparse CLI with background runs, for the wait: and kill: keys.

The fixture verbsurface's end-to-end tests front: the runs live in one
JSON file under $JOBS_HOME ({"ID": {"kind", "status", "terminal"}}), a run
is started by the test, and the CLI observes, reports and kills them with
--json at the root. It has no process of its own to watch: `observe`
reports a non-terminal run as started and alive.
"""
import argparse
import json
import os
import sys


class MachineParser(argparse.ArgumentParser):
    def error(self, message):
        if "--json" in sys.argv[1:]:
            print(json.dumps({"result_version": 1, "ok": False,
                              "error": {"code": "usage_error", "message": message,
                                        "details": {"command": self.prog}}}))
            sys.exit(2)
        super().error(message)


def build_parser():
    p = MachineParser(prog="jobs", description="Track background runs.")
    p.add_argument("--json", action="store_true", help="print one machine result")
    sub = p.add_subparsers(dest="command", required=True, parser_class=MachineParser)
    obs = sub.add_parser("observe", help="observe runs (what wait polls)")
    obs.add_argument("ids", nargs="+", help="run ids")
    w = sub.add_parser("wait", help="wait until runs end")
    w.add_argument("ids", nargs="+", help="run ids")
    w.add_argument("--max-wait-seconds", dest="max_wait_seconds", type=float, help="how long to wait")
    w.add_argument("--poll-interval-seconds", dest="poll_interval_seconds", type=float, help="between polls")
    st = sub.add_parser("status", help="one run's record")
    st.add_argument("id", help="run id")
    k = sub.add_parser("kill", help="stop a run")
    k.add_argument("id", help="run id")
    k.add_argument("--grace", help="time between SIGTERM and SIGKILL")
    return p


def main():
    args = build_parser().parse_args()
    path = os.path.join(os.environ.get("JOBS_HOME", "."), "runs.json")
    with open(path) as f:
        runs = json.load(f)

    def out(data=None, error=None):
        r = {"result_version": 1, "ok": error is None}
        if error is None:
            r["data"] = data
        else:
            r["error"] = error
        print(json.dumps(r))
        sys.exit(0 if error is None else 1)

    def unknown(i):
        return {"code": "unknown_id", "message": "no run %s" % i}

    if args.command == "observe":
        obs = []
        for i in args.ids:
            r = runs.get(i)
            if r is None:
                obs.append({"id": i, "error": unknown(i)})
                continue
            obs.append({"id": i, "kind": r["kind"], "status": r["status"], "terminal": r["terminal"],
                        "phase": "started", "process": "gone" if r["terminal"] else "alive",
                        "end_recorded": r["terminal"]})
        out({"observations": obs})
    if args.command == "wait":
        out(error={"code": "not_here", "message": "wait is served by the front"})
    if args.command == "status":
        r = runs.get(args.id)
        if r is None:
            out(error=unknown(args.id))
        out({"records": [dict(r, id=args.id)]})
    if args.command == "kill":
        r = runs.get(args.id)
        if r is None:
            out(error=unknown(args.id))
        r.update(status="killed", terminal=True)
        with open(path, "w") as f:
            json.dump(runs, f)
        out({"reaped": [{"kind": r["kind"], "id": args.id, "status": "killed"}], "grace": args.grace})


if __name__ == "__main__":
    main()
