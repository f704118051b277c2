#!/usr/bin/env python3
"""Writes the PTX of every gpu.binary (format=isa) in an MLIR module read from
stdin to OUT_DIR/<binary>.ptx. Used by tx-compile.sh for the ptxas report."""
import os
import re
import sys


def unescape(s):
    # MLIR prints string attributes with \XX hex escapes and \\ / \".
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 2 < len(s) + 1 and re.match(r"[0-9A-Fa-f]{2}", s[i + 1:i + 3]):
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        elif c == "\\" and i + 1 < len(s):
            out.append(ord(s[i + 1]))
            i += 2
        else:
            out += c.encode()
            i += 1
    return out.decode()


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".ptx"):
            os.remove(os.path.join(out_dir, f))
    n = 0
    for line in sys.stdin:
        m = re.match(r'\s*gpu\.binary @(\S+)\s.*assembly = "((?:[^"\\]|\\.)*)"', line)
        if not m:
            continue
        with open(os.path.join(out_dir, m.group(1) + ".ptx"), "w") as f:
            f.write(unescape(m.group(2)))
        n += 1
    if n == 0:
        sys.exit("extract_ptx: no gpu.binary with PTX assembly in the input")


if __name__ == "__main__":
    main()
