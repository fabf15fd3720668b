#!/bin/sh
# tools/house.sh - draw the house of src/: folders are rooms, files in them
# are linked by arrows, and count what breaks the plan.
#
#   tools/house.sh [BUILD_DIR] [--dot FILE]
#
# An arrow A -> B between two source files says that A depends on B:
#   - A #includes a header of B (x.h belongs to x.c beside it, when there is
#     one; a header without a .c is a file of its own), or
#   - A's object refers to a global symbol that B's object defines (nm over
#     the objects of BUILD_DIR, default "build"; without a build only the
#     includes are drawn, and the output says so).
# Printed: every file-level circle (a strongly connected set of files),
# every room-level circle, and every upward arrow: from a room to a room
# ranked above it in RANKS below (rooms of one rank must not meet either).
# Rooms missing from RANKS take the rank of their nearest listed parent.
# With --dot FILE, the rooms and their arrows as Graphviz DOT.
# Exit status: 0 when there is no circle and no upward arrow, 1 otherwise.
set -eu
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import collections, glob, os, re, subprocess, sys

# Rooms from the bottom up: a room may depend on rooms of a lower rank only.
RANKS = {
    "trace": 0,                       # the trace model
    "trace/formats/json": 1,          # the fast JSON reader
    "trace/formats": 2,               # detect, read, write
    "validate/verdict": 3,            # levels, edges, verdicts
    "validate/weak": 4,               # rc, ra, causal (AWDIT)
    "validate/strong": 4,             # ser, si
    "validate": 5,                    # ip_check and its outputs
    "encode": 6,
    "predict": 7,                     # the search
    "predict/report": 8,              # text, JSON, DOT, HTML, drawings
    "cli": 9,
}

args = sys.argv[1:]
dot = None
if "--dot" in args:
    i = args.index("--dot")
    dot = args[i + 1]
    del args[i:i + 2]
build = args[0] if args else "build"

files = sorted(glob.glob("src/**/*.[ch]", recursive=True))
room = {f: os.path.dirname(f)[len("src/"):] for f in files}

def owner(h):
    c = h[:-2] + ".c"
    return c if c in room else h

def rank(r):
    while r and r not in RANKS:
        r = os.path.dirname(r)
    return RANKS.get(r)

arrows = collections.defaultdict(set)        # file -> {file}
why = collections.defaultdict(set)           # (a, b) -> {reason}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
by_name = collections.defaultdict(list)
for f in files:
    by_name[os.path.basename(f)].append(f)

def add(a, b, reason):
    if a != b:
        arrows[a].add(b)
        why[(a, b)].add(reason)

for f in files:
    src = owner(f)
    for line in open(f, encoding="utf-8", errors="replace"):
        m = inc.match(line)
        if not m:
            continue
        name = m.group(1)
        near = os.path.normpath(os.path.join(os.path.dirname(f), name))
        cands = [near] if near in room else by_name.get(os.path.basename(name), [])
        if len(cands) > 1:            # same name in several rooms: the nearest
            cands = sorted(cands, key=lambda c: os.path.relpath(c, os.path.dirname(f)).count(".."))[:1]
        for h in cands:
            add(src, owner(h), "#include " + name)

objs = glob.glob(os.path.join(build, "src", "**", "*.c.o"), recursive=True)
newest = {}                   # source -> its newest object (targets move)
for o in objs:
    lib, rest = o.split("/CMakeFiles/", 1)
    rel = os.path.relpath(lib, build)
    s = os.path.normpath(os.path.join(rel, rest.split(".dir/", 1)[1][:-2]))
    if s in room and (s not in newest or
                      os.path.getmtime(o) > os.path.getmtime(newest[s])):
        newest[s] = o
defs, uses = {}, collections.defaultdict(set)
for s, o in sorted(newest.items()):
    out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defs[p[2]] = s
        elif len(p) == 2 and p[0] == "U":
            uses[s].add(p[1])
for s, us in uses.items():
    for u in us:
        if u in defs:
            add(s, defs[u], u)

def sccs(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop(); on.discard(w); c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out

def show(a, b):
    r = sorted(why[(a, b)])
    return "%s -> %s (%s%s)" % (a[4:], b[4:], ", ".join(r[:4]), ", ..." if len(r) > 4 else "")

nodes = set(room) | set(arrows)
file_circles = sccs(nodes, arrows)
room_arrows = collections.defaultdict(set)
for a, bs in arrows.items():
    for b in bs:
        if room[a] != room[b]:
            room_arrows[room[a]].add(room[b])
room_circles = sccs(set(room.values()), room_arrows)
upward = [(a, b) for a in sorted(arrows) for b in sorted(arrows[a])
          if room[a] != room[b] and rank(room[a]) is not None
          and rank(room[b]) is not None and rank(room[b]) >= rank(room[a])]

print("rooms (rank, files, lines):")
for r in sorted(set(room.values()), key=lambda r: (rank(r) if rank(r) is not None else 99, r)):
    fs = [f for f in files if room[f] == r]
    lines = sum(sum(1 for _ in open(f, encoding="utf-8", errors="replace")) for f in fs)
    down = sorted(room_arrows.get(r, ()))
    print("  %-22s %2s %3d %6d  -> %s" % (r, rank(r) if rank(r) is not None else "?",
          len(fs), lines, ", ".join(down) or "-"))
if not objs:
    print("(no objects under %s: symbol arrows left out, includes only)" % build)
print("file circles: %d" % len(file_circles))
for c in file_circles:
    print("  circle in %s:" % ", ".join(sorted({room[f] for f in c})))
    for a in c:
        for b in sorted(arrows[a]):
            if b in c:
                print("    " + show(a, b))
print("room circles: %d" % len(room_circles))
for c in room_circles:
    print("  " + " <-> ".join(c))
print("upward arrows: %d" % len(upward))
for a, b in upward:
    print("  " + show(a, b))
for r in sorted({room[f] for f in files if rank(room[f]) is None}):
    print("unranked room: %s (add it to RANKS)" % r)

if dot:
    with open(dot, "w") as out:
        out.write("digraph house {\n  rankdir=BT; node [shape=box];\n")
        for r in sorted(set(room.values())):
            out.write('  "%s";\n' % r)
        for a in sorted(room_arrows):
            for b in sorted(room_arrows[a]):
                up = rank(a) is not None and rank(b) is not None and rank(b) >= rank(a)
                out.write('  "%s" -> "%s"%s;\n' % (a, b, " [color=red]" if up else ""))
        out.write("}\n")
sys.exit(1 if file_circles or room_circles or upward else 0)
PY
