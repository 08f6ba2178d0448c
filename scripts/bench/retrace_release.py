"""The release build of `retrace` that the benchmark scripts time: `RETRACE` when it names
one, otherwise this checkout's, built if need be."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def retrace_binary():
    binary = os.environ.get("RETRACE")
    if binary:
        return binary
    subprocess.run(["swift", "build", "-c", "release", "--product", "retrace"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "retrace")
