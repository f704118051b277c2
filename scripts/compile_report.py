#!/usr/bin/env python3
"""The compile report of tx-compile.sh libraries (stdlib only).

    compile_report.py [--stem S] DIR ...    # one library per DIR (tx-compile.sh's OUT_DIR)
    compile_report.py --all OUT             # every OUT/<stem>/lib<stem>.so (scripts/main.sh)
      --kernels    one line per kernel (ptxas -v: registers, spills, shared memory;
                   a function's several kernels share one line)
      --verbose    also tx-opt's remarks as they were printed (TX_VERBOSE=1)

Per library: one line (entry points, kernels, target, size, the largest
register count, spills), then each distinct remark once with the functions
it concerns: e.g. the tx.attention ops that tx-attention-to-gpu left to the
reference lowering, and why. Reads what tx-compile.sh leaves in DIR:
lib<stem>.json (manifest), <stem>.remarks.txt (tx-opt's diagnostics of its
one compiling run), <stem>.kernels.txt (ptxas -v), ptx/*.ptx.
"""
import argparse
import json
import os
import re
import subprocess
import sys

DIAG = re.compile(r"^(?P<loc>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>remark|warning|error|note): "
                  r"(?P<msg>.*)$")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def entry_points(d, stem, manifest):
    if manifest is not None:
        return [f["name"] for f in manifest.get("functions", [])]
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", os.path.join(d, "lib%s.so" % stem)],
                             capture_output=True, text=True).stdout
    except OSError:
        return []
    return sorted({l.split()[-1][len("_mlir_ciface_"):] for l in out.splitlines()
                   if " _mlir_ciface_" in l and not l.endswith("_on_stream")})


def function_of(loc, line, manifest):
    """The function a diagnostic at file:line belongs to: the op with that
    location, else the last function starting at or before the line."""
    if manifest is None:
        return None
    best, best_line = None, -1
    for f in manifest.get("functions", []):
        for op in f.get("ops", []):
            if op.get("loc", "").startswith("%s:%d:" % (loc, line)):
                return f["name"]
        m = re.match(r"^(.*):(\d+):\d+$", f.get("loc", ""))
        if m and m.group(1) == loc and best_line < int(m.group(2)) <= line:
            best, best_line = f["name"], int(m.group(2))
    return best


def remarks(text, manifest):
    """Distinct diagnostics (severity, message) -> [functions], in order."""
    groups = {}
    for raw in (text or "").splitlines():
        m = DIAG.match(raw)
        if not m or m.group("sev") == "note":
            continue
        key = (m.group("sev"), m.group("msg").strip())
        fn = function_of(m.group("loc"), int(m.group("line")), manifest)
        groups.setdefault(key, [])
        if fn and fn not in groups[key]:
            groups[key].append(fn)
        elif not fn:
            groups[key].append("%s:%s" % (os.path.basename(m.group("loc")), m.group("line")))
    return groups


def kernels(text):
    """[(kernel, registers, spilled bytes, static shared bytes, ptxas notes)]
    from ptxas -v; the notes are the codes of its "Potential Performance
    Loss" messages (e.g. C7513: wgmma instructions serialized)."""
    out = []
    cur = None
    for line in (text or "").splitlines():
        if line.startswith("== "):
            cur = [line[3:].strip(), 0, 0, 0, []]
            out.append(cur)
        elif cur is not None and "Performance Loss" in line:
            m = re.search(r"\((C\d+)\)", line)
            cur[4].append(m.group(1) if m else "?")
        elif cur is not None and "Used" in line:
            m = re.search(r"Used (\d+) registers", line)
            cur[1] = int(m.group(1)) if m else 0
            m = re.search(r"(\d+) bytes smem", line)
            cur[3] = int(m.group(1)) if m else 0
        elif cur is not None and "spill" in line:
            cur[2] += sum(int(x) for x in re.findall(r"(\d+) bytes spill", line))
    return [tuple(k) for k in out]


def size_str(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024.0


def option(pipeline, key, default):
    """The value of key=value in a pipeline option string (the last one
    wins, as in tx-opt)."""
    m = re.findall(r"(?:^|\s)%s=(\S+)" % re.escape(key), pipeline or "")
    return m[-1] if m else default


def report(d, kernel_lines=False, verbose=False, name_width=0, stem=None, label=None):
    stem = stem or os.path.basename(os.path.normpath(d))
    lib = os.path.join(d, "lib%s.so" % stem)
    if not os.path.exists(lib):
        libs = [f for f in os.listdir(d) if f.startswith("lib") and f.endswith(".so")
                and f != "libtx_cuda_runtime.so"]
        if len(libs) != 1:
            return ["%s: no library" % d]
        stem = libs[0][3:-3]
        lib = os.path.join(d, libs[0])
    mtext = read(os.path.join(d, "lib%s.json" % stem))
    manifest = None
    if mtext:
        try:
            manifest = json.loads(mtext)
        except ValueError:
            manifest = None
    pipeline = (manifest or {}).get("pipeline", "") or read(os.path.join(d, "options.txt")) or ""
    chip = option(pipeline, "chip", "sm_90")
    fmt = {"bin": "cubin", "fatbin": "fatbin", "isa": "PTX"}.get(
        option(pipeline, "format", "bin"), option(pipeline, "format", "bin"))
    entries = entry_points(d, stem, manifest)
    ks = kernels(read(os.path.join(d, "%s.kernels.txt" % stem)))
    ptx_dir = os.path.join(d, "ptx")
    nk = len(ks) or (len([f for f in os.listdir(ptx_dir) if f.endswith(".ptx")])
                     if os.path.isdir(ptx_dir) else 0)
    counted = ks or os.path.isdir(ptx_dir)
    parts = ["%d entry point%s" % (len(entries), "" if len(entries) == 1 else "s"),
             "%d kernels" % nk if counted else "kernels not listed (no ptxas)",
             "%s %s" % (chip, fmt), size_str(os.path.getsize(lib))]
    if ks:
        top = max(ks, key=lambda k: k[1])
        parts.append("max %d registers (%s)" % (top[1], top[0]))
        spilled = sum(k[2] for k in ks)
        parts.append("%s spilled" % size_str(spilled) if spilled else "no spills")
        noted = [k for k in ks if k[4]]
        if noted:
            parts.append("ptxas performance warnings in %d kernel%s (%s)" % (
                len(noted), "" if len(noted) == 1 else "s",
                " ".join(sorted({c for k in noted for c in k[4]}))))
    extra = [w for w in pipeline.split() if not w.startswith(("format=", "toolkit=", "chip="))]
    if extra:
        parts.append("options: " + " ".join(extra))
    lines = ["%-*s %s" % (name_width, (label or stem) + ":", ", ".join(parts))]
    rtext = read(os.path.join(d, "%s.remarks.txt" % stem))
    for (sev, msg), fns in remarks(rtext, manifest).items():
        what = "fallback" if "reference lowering" in msg else sev
        lines.append("  %s (%d): %s -- %s" % (what, len(fns), msg, ", ".join(fns)))
    if kernel_lines:
        # One line per kernel; the several kernels of one function (the
        # reference lowering's loop nests: f_kernel, f_kernel_0, ...) share one.
        groups = {}
        for k in ks:
            groups.setdefault(re.sub(r"_kernel(_\d+)?$", "", k[0]), []).append(k)
        order = {f["name"]: i for i, f in enumerate((manifest or {}).get("functions", []))}
        rows = []
        for fn, g in sorted(groups.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])):
            name = g[0][0] if len(g) == 1 else "%s_kernel* (%d kernels)" % (fn, len(g))
            rows.append((name, ("%4d registers" if len(g) == 1 else "max %d registers")
                         % max(k[1] for k in g),
                         "%s spilled" % size_str(sum(k[2] for k in g))
                         if any(k[2] for k in g) else "no spills",
                         "%s static smem" % size_str(max(k[3] for k in g)),
                         "".join(", ptxas performance warning %s" % c
                                 for c in sorted({c for k in g for c in k[4]}))))
        w = max([len(r[0]) for r in rows] + [6])
        for r in rows:
            lines.append("    %-*s %s, %s, %s%s" % ((w,) + r))
    if verbose and rtext and rtext.strip():
        lines.append("  tx-opt diagnostics (%s):" % os.path.join(d, "%s.remarks.txt" % stem))
        lines += ["    " + l for l in rtext.rstrip().splitlines()]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--all", action="store_true",
                    help="DIRS are output roots holding <stem>/lib<stem>.so")
    ap.add_argument("--kernels", action="store_true", help="one line per kernel")
    ap.add_argument("--verbose", action="store_true", help="also the full tx-opt remarks")
    ap.add_argument("--stem", help="the library's stem (default: the directory's name)")
    ap.add_argument("--label", help="what the library's line starts with (default: the stem)")
    a = ap.parse_args()
    dirs = []
    for d in a.dirs:
        if not os.path.isdir(d):
            ap.error("%s is not a directory (a tx-compile.sh output directory%s)"
                     % (d, ", or a root of them with --all" if a.all else ""))
        if a.all:
            dirs += sorted(os.path.join(d, s) for s in os.listdir(d)
                           if os.path.exists(os.path.join(d, s, "lib%s.so" % s)))
        else:
            dirs.append(d)
    width = max([len(os.path.basename(os.path.normpath(d))) + 1 for d in dirs] + [0]) if a.all else 0
    for d in dirs:
        print("\n".join(report(d, a.kernels, a.verbose, width, a.stem, a.label)))


if __name__ == "__main__":
    sys.exit(main())
