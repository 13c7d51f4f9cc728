# The prelude of every walker: Run puts it before the walker's own source
# and runs the two as `python3 -c <source> MODE`, with a JSON request on
# stdin and a JSON answer on stdout. It holds what the walkers share: the
# protocol's main, the error a walker raises for a target it cannot walk,
# the test for plain JSON data and qualified names. A walker ends with
# `serve({"walk": walk, "parse": parse})`.

import json
import sys

REAL_STDOUT = sys.stdout


class WalkError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def _qualname(obj):
    """The qualified name of a function (through functools.partial), for
    messages that name a callback or a factory."""
    if obj is None:
        return None
    f = getattr(obj, "func", obj)  # functools.partial
    module = getattr(f, "__module__", None) or ""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__
    return "%s.%s" % (module, name) if module else name


def _jsonable(v):
    """Returns (True, value) if v is plain JSON data, else (False, repr)."""
    if v is None or isinstance(v, (bool, str)):
        return True, v
    if isinstance(v, int):
        return True, v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return False, repr(v)
        return True, v
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            ok, j = _jsonable(x)
            if not ok:
                return False, repr(v)
            out.append(j)
        return True, out
    return False, repr(v)


def serve(modes):
    mode = sys.argv[1] if len(sys.argv) > 1 else "walk"
    request = json.load(sys.stdin)
    sys.stdout = sys.stderr  # anything a target prints must not corrupt the answer
    answer = modes[mode](request)
    json.dump(answer, REAL_STDOUT, allow_nan=False)
    REAL_STDOUT.flush()
