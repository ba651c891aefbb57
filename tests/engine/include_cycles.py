#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The engine's modules form no include cycle.

A module is a file stem of src/engine: foo.c and foo.h are module "foo";
the responder's files (responder.*, resp_*.c, resp_int.h) are one module,
"responder", and resp_state.h (the state nic.h embeds) one of its own. A
module depends on another when one of its files includes a header of the
other ("engine/x.h"). Prints each cycle found and exits 1; exits 0 if there
is none. Usage: include_cycles.py SRC_ENGINE_DIR
"""
import os
import re
import sys


def module(name):
    stem = name.rsplit('.', 1)[0]
    if stem == 'resp_state':
        return stem
    if stem == 'responder' or stem.startswith('resp_'):
        return 'responder'
    return stem


def main():
    root = sys.argv[1]
    deps = {}
    inc = re.compile(r'^\s*#\s*include\s+"engine/([A-Za-z0-9_]+\.h)"', re.M)
    files = sorted(f for f in os.listdir(root) if f.endswith(('.c', '.h')))
    if not files:
        print('no sources in', root)
        return 1
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8') as fh:
            text = fh.read()
        m = module(f)
        deps.setdefault(m, set())
        for h in inc.findall(text):
            if not os.path.exists(os.path.join(root, h)):
                print(f'{f}: includes engine/{h}, which does not exist')
                return 1
            d = module(h)
            if d != m:
                deps[m].add(d)
    # Depth-first search; a back edge is a cycle.
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(deps.get(m, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(deps):
        if m not in state:
            visit(m)
    for c in cycles:
        print('include cycle:', ' -> '.join(c))
    print(f'{len(deps)} modules, {sum(len(v) for v in deps.values())} dependencies, '
          f'{len(cycles)} cycles')
    return 1 if cycles else 0


if __name__ == '__main__':
    sys.exit(main())
