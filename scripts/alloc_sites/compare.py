#!/usr/bin/env python3
"""Compares dumps of alloc_sites.c's log (scripts/alloc_sites/alloc_sites.c): the live MB
each module holds, and the sites that differ most between the dumps named.

    python3 scripts/alloc_sites/compare.py LOG 39,60,82 [EXECUTABLE]

EXECUTABLE (default build/bin/tidepool) names the program's own sites (addr2line). Each
dump lists its 80 largest sites: a site below that in a dump shows as '-', and the module
sums cover the listed sites only."""
import collections
import re
import subprocess
import sys


def read(path):
    dumps, cur = {}, None
    for line in open(path):
        m = re.match(r'=== dump (\d+): ([\d.]+) MB', line)
        if m:
            cur = int(m.group(1))
            dumps[cur] = {'total': float(m.group(2)), 'sites': {}}
            continue
        m = re.match(r'\s*([\d.]+) MB\s+(\d+) (\S+)', line)
        if m and cur is not None:
            dumps[cur]['sites'][m.group(3)] = float(m.group(1))
    return dumps


def name(site, exe):
    module, offset = site.rsplit('+', 1)
    if module.endswith(exe.split('/')[-1]):
        # (a return address: the call is the byte before it)
        out = subprocess.run(['addr2line', '-f', '-C', '-e', exe, hex(int(offset, 16) - 1)],
                             capture_output=True, text=True).stdout
        return out.split('\n')[0][:80]
    return module.split('/')[-1] + '+' + offset


def main():
    dumps = read(sys.argv[1])
    ids = [int(x) for x in sys.argv[2].split(',')]
    exe = sys.argv[3] if len(sys.argv) > 3 else 'build/bin/tidepool'
    print('dump        ' + ' '.join('%8d' % i for i in ids))
    print('live MB     ' + ' '.join('%8.1f' % dumps[i]['total'] for i in ids))
    modules = collections.defaultdict(lambda: [0.0] * len(ids))
    for k, i in enumerate(ids):
        for site, mb in dumps[i]['sites'].items():
            modules[site.rsplit('+', 1)[0].split('/')[-1]][k] += mb
    for module, v in sorted(modules.items(), key=lambda kv: -max(kv[1]))[:6]:
        print('%-12s' % module[:12] + ' '.join('%8.1f' % x for x in v))
    print('the sites that differ most:')
    sites = set().union(*(dumps[i]['sites'] for i in ids))
    rows = []
    for site in sites:
        v = [dumps[i]['sites'].get(site) for i in ids]
        known = [x for x in v if x is not None]
        rows.append((max(known) - min(known) if len(known) > 1 else 0.0, site, v))
    for spread, site, v in sorted(rows, reverse=True)[:15]:
        cells = ' '.join('%6.2f' % x if x is not None else '     -' for x in v)
        print('  %6.2f  %s  %s' % (spread, cells, name(site, exe)))


if __name__ == '__main__':
    main()
