#!/usr/bin/env python3
"""jitlines.py N TOP cg jit map.json dist

Instructions per command of V8's optimized code, per function and per source line: a callgrind
run (--dump-instr=yes) that counted N measured commands and nothing else, joined with the
jitdump V8 wrote (--perf-prof: code addresses, sizes, names and address -> line tables). Lines
are decoded with padlines.py's map (line // 1000 names the file); set BYLINE=1 for lines across
every function, otherwise the busiest functions are listed.
EVENT names another callgrind event to count instead (DLmr: misses of the last cache level)."""
import bisect, collections, json, os, re, struct, sys

EVENT = os.environ.get('EVENT')
# Misses are counted a few per command, instructions thousands: decimals shown, and the floors
# below which a function or a line is not listed.
DIGITS, FUNCTION_FLOOR, LINE_FLOOR = (2, 0.01, 0.005) if EVENT else (0, 3, 2)


def read_jitdump(path):
    data = open(path, 'rb').read()
    codes, debug = [], {}
    at = 40  # the jitdump header
    while at + 16 <= len(data):
        kind, size, _ = struct.unpack_from('<IIQ', data, at)
        body = data[at + 16: at + size]
        if kind == 0:  # JIT_CODE_LOAD: pid, tid, vma, code address, code size, index, name
            _, _, _, address, code_size, _ = struct.unpack_from('<IIQQQQ', body, 0)
            name = body[40: body.index(b'\0', 40)].decode('latin1')
            codes.append((address, code_size, name))
        elif kind == 2:  # JIT_CODE_DEBUG_INFO: code address, entries (address, line, discriminator, file)
            address, count = struct.unpack_from('<QQ', body, 0)
            offset, entries = 16, []
            for _ in range(count):
                entry_address, line, _ = struct.unpack_from('<QII', body, offset)
                offset += 16
                end = body.index(b'\0', offset)
                offset = end + 1
                entries.append((entry_address, line))
            debug[address] = sorted(entries)
        at += size
    codes.sort()
    return codes, debug


def read_callgrind(path):
    """Self counts of one event (EVENT, default Ir: instructions) by instruction address ('positions: instr line')."""
    counts = collections.Counter()
    last, skip, column = 0, False, 2
    for raw in open(path):
        line = raw.rstrip('\n')
        if line.startswith('events:'):
            column = 2 + line.split()[1:].index(EVENT or 'Ir')
            continue
        if not line or line[0] not in '0123456789+-*c':
            continue
        if line.startswith('calls='):
            skip = True  # the next cost line is the call's inclusive cost
            continue
        if line.startswith('c'):
            continue
        parts = line.split()
        position = parts[0]
        if position.startswith('0x'):
            last = int(position, 16)
        elif position[0] in '+-':
            last += int(position, 16) if position[1:].startswith('0x') else int(position)
        if skip:
            skip = False
            continue
        if len(parts) > column:
            counts[last] += int(parts[column])
    return counts


def attribute(cg_path, jit_path):
    codes, debug = read_jitdump(jit_path)
    starts = [code[0] for code in codes]
    by_function, by_line = collections.Counter(), collections.Counter()
    for address, count in read_callgrind(cg_path).items():
        at = bisect.bisect_right(starts, address) - 1
        if at < 0 or not (codes[at][0] <= address < codes[at][0] + codes[at][1]):
            continue
        start, _, name = codes[at]
        name = re.sub(r'file:///\S*/dist/', '', re.sub(r':\d+:\d+$', '', name))
        by_function[name] += count
        entries = debug.get(start)
        line = 0
        if entries:
            found = bisect.bisect_right([entry[0] for entry in entries], address) - 1
            if found >= 0:
                line = entries[found][1]
        by_line[(name, line)] += count
    return by_function, by_line


def main():
    n, top = float(sys.argv[1]), int(sys.argv[2])
    functions, by_line = attribute(sys.argv[3], sys.argv[4])
    mapping = json.load(open(sys.argv[5]))
    dist = sys.argv[6]
    print(f"{sum(functions.values()) / n:.{DIGITS}f} {EVENT or 'instructions'} per command in optimized code")
    if not os.environ.get('BYLINE'):
        for name, count in sorted(functions.items(), key=lambda item: -item[1])[:top]:
            if count / n >= FUNCTION_FLOOR:
                print(f"{count / n:8.{DIGITS}f}  {name}")
        return
    sources = {}
    lines = collections.Counter()
    for (name, line), count in by_line.items():
        lines[(line // 1000, line % 1000) if line >= 1000 else (name, line)] += count
    for (where, line), count in lines.most_common(top):
        if count / n < LINE_FLOOR:
            break
        text = ''
        if isinstance(where, int) and str(where) in mapping:
            file = mapping[str(where)]
            if file not in sources:
                sources[file] = open(os.path.join(dist, file)).read().split('\n')
            text = sources[file][where * 1000 + line - 1].strip()[:90]
            where = file
        print(f'{count / n:8.2f}  {where}:{line}  {text}')


main()
