#!/usr/bin/env python3
"""Checks the structural rules of issue #39 on the C++ sources:

  * no file in lib/ over --max-file lines (600);
  * no function in lib/ over --max-function lines (150), counted from the
    first line of its signature to its closing brace (lambdas count with
    the function that holds them);
  * the include graph between the folders of lib/Transformer (and
    include/Transformer, as the folder "include") has no cycle, and no arrow
    leads from IR/ or Transforms/ into GPU/.

Usage: scripts/layer-check.py [--root DIR] [--max-file N] [--max-function N]
       [--graph]
Prints each violation as FILE:LINE: message and exits 1 when there is one
(0 otherwise); --graph also prints the folder graph. Functions are found by
a brace scan of the code with comments and literals removed: a '{' at
namespace or class level whose header holds a '(' opens a function.
"""
import argparse
import os
import re
import sys

HEADER_KINDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def strip(text):
    """Comments and string/char literals blanked out, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of each function definition."""
    code = strip(text)
    stack, found = [], []  # stack of (kind, start line, name)
    header_start, header = 0, []
    line = 1
    for ch in code:
        if ch == "{":
            h = "".join(header)
            in_fn = any(k == "fn" for k, _, _ in stack)
            if in_fn:
                kind = "block"
            elif HEADER_KINDS.search(h.split("(")[0]) or h.strip().startswith("extern"):
                kind = "scope"
            elif "(" in h:
                kind = "fn"
            else:
                kind = "block"
            name = ""
            if kind == "fn":
                m = re.findall(r"([~\w:]+)\s*\(", h)
                name = m[0] if m else "?"
            stack.append((kind, header_start, name))
            header, header_start = [], line
        elif ch == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "fn":
                    found.append((name, start, line))
            header, header_start = [], line
        elif ch == ";":
            header, header_start = [], line
        else:
            if not header and ch.isspace():
                header_start = line + (ch == "\n")
            else:
                if not header:
                    header_start = line
                header.append(ch)
        if ch == "\n":
            line += 1
    return found


def folder_of(path, root):
    rel = os.path.relpath(path, root)
    if rel.startswith("include" + os.sep):
        return "include"
    parts = rel.split(os.sep)[2:-1]  # lib/Transformer/<folders>/file
    return "/".join(parts) or "."


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--max-file", type=int, default=600)
    ap.add_argument("--max-function", type=int, default=150)
    ap.add_argument("--graph", action="store_true", help="print the folder include graph")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    lib = os.path.join(root, "lib", "Transformer")
    inc = os.path.join(root, "include", "Transformer")
    sources = []
    for base in (os.path.join(root, "lib"), inc):
        for d, _, files in os.walk(base):
            sources += [os.path.join(d, f) for f in files if f.endswith((".cpp", ".h"))]
    sources.sort()
    if not sources:
        print("layer-check: no sources under %s" % root, file=sys.stderr)
        return 2
    bad = []
    by_rel = {}  # header path as included -> file
    for f in sources:
        rel_lib = os.path.relpath(f, lib)
        by_rel[rel_lib] = f
        by_rel[os.path.relpath(f, os.path.join(root, "include"))] = f
    edges = {}
    for f in sources:
        text = open(f, encoding="utf-8").read()
        rel = os.path.relpath(f, root)
        nlines = text.count("\n")
        in_lib = f.startswith(os.path.join(root, "lib") + os.sep)
        if in_lib and nlines > a.max_file:
            bad.append("%s:1: %d lines (at most %d per file)" % (rel, nlines, a.max_file))
        if in_lib:
            for name, start, end in functions(text):
                if end - start + 1 > a.max_function:
                    bad.append("%s:%d: function '%s' has %d lines (at most %d)"
                               % (rel, start, name, end - start + 1, a.max_function))
        if not f.startswith((lib + os.sep, inc + os.sep)):
            continue
        src = folder_of(f, root)
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            target = by_rel.get(m.group(1)) or by_rel.get(
                os.path.relpath(os.path.join(os.path.dirname(f), m.group(1)), lib))
            if not target:
                continue
            dst = folder_of(target, root)
            if dst != src:
                edges.setdefault(src, {}).setdefault(dst, "%s:%d" % (
                    rel, text.count("\n", 0, m.start()) + 1))
    for src, dsts in sorted(edges.items()):
        for dst, where in sorted(dsts.items()):
            if (src.split("/")[0] in ("IR", "Transforms")) and dst.split("/")[0] == "GPU":
                bad.append("%s: %s/ includes from %s/ (no arrow from IR/ or Transforms/ into GPU/)"
                           % (where, src, dst))
    # cycles: depth-first search over the folder graph
    color, path = {}, []

    def visit(u):
        color[u] = 1
        path.append(u)
        for v in sorted(edges.get(u, {})):
            if color.get(v) == 1:
                cyc = path[path.index(v):] + [v]
                bad.append("%s: include cycle between folders: %s"
                           % (edges[u][v], " -> ".join(cyc)))
            elif not color.get(v):
                visit(v)
        path.pop()
        color[u] = 2

    for u in sorted(edges):
        if not color.get(u):
            visit(u)
    if a.graph:
        for src, dsts in sorted(edges.items()):
            print("%s -> %s" % (src, ", ".join(sorted(dsts))))
    for b in bad:
        print(b)
    print("layer-check: %d files, %d violations" % (len(sources), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
