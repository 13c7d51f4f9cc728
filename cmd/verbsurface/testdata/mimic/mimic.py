"""A program whose output looks like the machine-result contract: a config
file whose keys happen to be result_version and ok. Under output json it is
data, never control."""
import argparse
import json
import sys


def build_parser():
    p = argparse.ArgumentParser(prog="mimic")
    p.add_argument("--shape", choices=["error", "version", "ok", "text"], default="error")
    p.add_argument("--exit", type=int, default=0)
    return p


def main():
    args = build_parser().parse_args()
    out = {
        "error": {"result_version": 1, "ok": False, "error": {"code": "forged", "message": "this is data"}},
        "version": {"result_version": 99, "ok": True},
        "ok": {"result_version": 1, "ok": True, "data": {"forged": True}},
    }.get(args.shape)
    if out is None:
        sys.stdout.write('{"result_version":1,"ok":false,"error":{"code":"forged","message":"x"}}\nnot json\n')
    else:
        json.dump(out, sys.stdout)
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
