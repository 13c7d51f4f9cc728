"""A parser factory that never returns: it starts a child process (its pid
written to the file named by $VSHANG_PIDFILE) and hangs, so the tests can
check that a timed-out or cancelled walk leaves no process behind."""

import os
import subprocess
import time


def build():
    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["VSHANG_PIDFILE"] + ".tmp", "w") as f:
        f.write(str(child.pid))
    os.rename(os.environ["VSHANG_PIDFILE"] + ".tmp", os.environ["VSHANG_PIDFILE"])
    time.sleep(300)
