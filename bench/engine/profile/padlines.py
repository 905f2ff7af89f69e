#!/usr/bin/env python3
"""padlines.py <dist> <copy> <map.json>: copies a compiled dist, prefixing the k-th engine or
engine-benchmark file with k*1000 empty lines, so a line number names its file (line // 1000)
in V8's jitdump, which gives inlined code the outer function's script name."""
import json, os, shutil, sys

src, dst, map_path = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.copytree(src, dst)
mapping = {}
index = 1
for root, _, files in os.walk(dst):
    for name in sorted(files):
        if not name.endswith('.js'):
            continue
        path = os.path.join(root, name)
        relative = os.path.relpath(path, dst)
        if not (relative.startswith('engine/') or relative.startswith('bench/engine/')):
            continue
        text = open(path).read()
        if text.count('\n') >= 1000:
            raise SystemExit(f'{relative} has 1000 lines or more')
        open(path, 'w').write('\n' * (index * 1000) + text)
        mapping[index] = relative
        index += 1
json.dump(mapping, open(map_path, 'w'))
