#!/usr/bin/env python3
"""The house's rule (src/sim/README.md, docs/layout.md): a folder includes only the folders
below it. Reads every #include "..." in src/ and kernels/ and fails, naming the file and
the include, when one points up or sideways; also fails on a circle of includes between
files. Run by CTest as `layering` (label unit); `python3 tests/test_layering.py [ROOT]`."""
import os
import re
import sys

# What each folder may include directly (and, through them, everything they may).
BELOW = {
    'kernels': [],
    'util': [],
    'gpu': ['util'],
    'sim/backend': ['kernels', 'gpu', 'util'],
    'sim/neighbors': ['sim/backend'],
    'sim/mesh': ['sim/neighbors'],
    'sim/bodies': ['sim/backend'],
    'sim/water': ['sim/mesh', 'sim/bodies'],
    'sim/gas': ['sim/backend'],
    'sim/io': ['sim/water', 'sim/gas'],
    'sim/scene': ['sim/io'],
    'sim/runner': ['sim/water'],
    'sim/session': ['sim/io', 'sim/runner'],
    'render': ['kernels', 'gpu', 'util'],
    'app/window': ['render', 'sim/scene', 'sim/runner'],
    'app/start': ['sim/scene', 'sim/runner', 'sim/session'],
    'app/water': ['app/window', 'app/start'],
    'app/gas': ['app/window', 'app/start'],
    'app/headless': ['app/start'],
    'app': ['app/water', 'app/gas', 'app/headless'],
}


def closure(folder, seen=None):
    seen = set() if seen is None else seen
    for below in BELOW[folder]:
        if below not in seen:
            seen.add(below)
            closure(below, seen)
    return seen


def folder_of(path):
    """'src/sim/water/x.h' -> 'sim/water'; 'kernels/x.h' -> 'kernels'; None outside."""
    parts = path.split('/')
    if parts[0] == 'kernels':
        return 'kernels'
    if parts[0] != 'src' or len(parts) < 3:
        return None
    if parts[1] in ('sim', 'app') and len(parts) > 3:
        return parts[1] + '/' + parts[2]
    return parts[1]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    os.chdir(root)
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    allowed = {f: closure(f) | {f} for f in BELOW}
    problems, graph = [], {}
    for top in ('src', 'kernels'):
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith(('.h', '.cpp', '.cu', '.cuh')):
                    continue
                path = os.path.join(dirpath, name)
                here = folder_of(path)
                if here is None:
                    continue
                if here not in BELOW:
                    problems.append(f'{path}: folder {here} has no place in the order (tests/test_layering.py)')
                    continue
                graph[path] = []
                for target in include.findall(open(path, encoding='utf-8', errors='replace').read()):
                    for candidate in (os.path.join('src', target), target, os.path.join(dirpath, target)):
                        if os.path.isfile(candidate):
                            target_path = os.path.normpath(candidate)
                            break
                    else:
                        continue  # a generated or third-party header (glad, imgui)
                    graph[path].append(target_path)
                    there = folder_of(target_path)
                    if there is not None and there not in allowed[here]:
                        problems.append(f'{path} includes {target}: {here} may not include {there}')
    # Circles between files.
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                problems.append('circle: ' + ' -> '.join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    for p in problems:
        print(p)
    print(f'{len(graph)} files read, {sum(len(v) for v in graph.values())} includes, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
