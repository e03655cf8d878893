#!/usr/bin/env python3
"""Independent RFC 8785 (JCS) canonicaliser and mcp.lock digest calculator.

Written from RFC 8785 and DESIGN.md, without looking at or calling the Go code,
so the Go tests can check pkg/lockfile against digests computed another way.
Standard library only. Deliberately small: it supports the inputs used in this
directory (integers below 2^53, and doubles that print without an exponent or
with one below 1e-6 / at or above 1e21); anything else raises.

Usage:
  jcs.py canon FILE        print the canonical form of the JSON in FILE
  jcs.py digest FILE       print sha256:<hex> of that canonical form
  jcs.py check LOCKFILE..  recompute every digest of each lockfile and compare
"""
import hashlib
import json
import sys


def _reject_dups(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("duplicate key %r" % k)
        seen.add(k)
    return dict(pairs)


def load(text):
    return json.loads(text, object_pairs_hook=_reject_dups)


def qstr(s):
    out = ['"']
    short = {'"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t'}
    for ch in s:
        if ch in short:
            out.append(short[ch])
        elif ord(ch) < 0x20:
            out.append('\\u%04x' % ord(ch))
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError("lone surrogate")
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def num(f):
    # ECMAScript Number.prototype.toString for the supported range.
    if f != f or f in (float('inf'), float('-inf')):
        raise ValueError("not a finite number")
    if f == 0:
        return '0'
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    a = abs(f)
    if 1e-6 <= a < 1e21:
        r = repr(f)
        if 'e' in r:
            raise ValueError("number %r needs a formatter this script does not have" % f)
        return r
    mant, exp = repr(f).split('e')
    return '%se%s%d' % (mant, '+' if int(exp) > 0 else '-', abs(int(exp)))


def canon(v):
    if v is None:
        return 'null'
    if v is True:
        return 'true'
    if v is False:
        return 'false'
    if isinstance(v, int):
        if abs(v) >= 2 ** 53:
            raise ValueError("integer beyond 2^53 not supported here")
        return str(v)
    if isinstance(v, float):
        return num(v)
    if isinstance(v, str):
        return qstr(v)
    if isinstance(v, list):
        return '[' + ','.join(canon(x) for x in v) + ']'
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode('utf-16-be'))  # RFC 8785 3.2.3: UTF-16 code units
        return '{' + ','.join(qstr(k) + ':' + canon(v[k]) for k in keys) + '}'
    raise TypeError(type(v))


def digest(v):
    return 'sha256:' + hashlib.sha256(canon(v).encode('utf-8')).hexdigest()


KINDS = [('tools', 'name'), ('prompts', 'name'), ('resources', 'uri'), ('resourceTemplates', 'uriTemplate')]


def entry_digests(entry):
    """The digests object DESIGN.md defines for one server entry."""
    d = {}
    surface = {k: v for k, v in entry.items() if k not in ('digests', 'policy')}
    for field, key in KINDS:
        surface[field] = sorted(entry[field], key=lambda it: it[key])
    d['surface'] = digest(surface)
    ins = entry['instructions']
    d['instructions'] = None if ins is None else digest(ins)
    for field, key in KINDS:
        d[field] = {it[key]: digest(it) for it in sorted(entry[field], key=lambda it: it[key])}
    return d


def main(argv):
    if len(argv) >= 3 and argv[1] in ('canon', 'digest'):
        v = load(open(argv[2], encoding='utf-8').read())
        sys.stdout.write(canon(v) if argv[1] == 'canon' else digest(v) + '\n')
        return 0
    if len(argv) >= 3 and argv[1] == 'check':
        bad = 0
        for path in argv[2:]:
            f = load(open(path, encoding='utf-8').read())
            for name, entry in f['servers'].items():
                want = entry_digests(entry)
                if want != entry['digests']:
                    print('%s: server %s: digests differ: want %s' % (path, name, json.dumps(want)))
                    bad += 1
                else:
                    print('%s: server %s: ok' % (path, name))
        return 1 if bad else 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
