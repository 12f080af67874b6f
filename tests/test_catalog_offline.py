"""Nothing touches the network unless the person asked for a download: ``chat --once``,
``memory search``, ``doctor``, ``models catalog`` and ``models use`` open no inet socket and do
not even import huggingface_hub. Checked in a real process with a Python audit hook on socket
creation (``socket.__new__``) and connection (``socket.connect``) - the same question
``strace -f -e trace=network`` answers (README: both say none)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = r"""
import json, socket, sys
seen = []
def hook(event, args):
    if event == "socket.__new__" and args[1] in (socket.AF_INET, socket.AF_INET6):
        seen.append(event)
    elif event == "socket.connect" and not isinstance(args[1], (str, bytes)):
        seen.append(f"{event} {args[1]}")
sys.addaudithook(hook)
from assistant.cli import main
codes = {}
for argv in (["doctor", "--json"], ["memory", "search", "coffee", "--json"], ["models", "catalog", "--json"],
             ["models", "use", "default", "--json"],
             ["chat", "--once", "Hello!", "--max-tokens", "4", "--incognito", "--json"]):
    codes[" ".join(argv[:2])] = main(argv)
print(json.dumps({"sockets": seen, "codes": codes, "hub_imported": "huggingface_hub" in sys.modules}), file=sys.stderr)
"""


def test_commands_other_than_download_open_no_inet_socket(converted_embedder_path, keepsake_home):
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "HF_ENDPOINT": "http://192.0.2.1:9"})  # fmt: skip
    report = json.loads(out.stderr.strip().splitlines()[-1])
    assert report["sockets"] == [] and report["hub_imported"] is False
    # they all ran (doctor may report a FAIL line on a bare test profile: exit 1, not a crash)
    assert report["codes"]["memory search"] == 0 and report["codes"]["chat --once"] == 0, out.stderr
    assert report["codes"]["models catalog"] == 0 and report["codes"]["models use"] == 0
    assert report["codes"]["doctor --json"] in (0, 1)
