#!/usr/bin/env python3
"""Print notes per label (with language count and English count) and per language."""
import re, sys
from collections import Counter, defaultdict
LINE = re.compile(r'^([a-z]{2,3})!([a-z]+) \| (.+)$')
path = sys.argv[1] if len(sys.argv) > 1 else 'attack.txt'
by_label = Counter(); langs = defaultdict(set); by_lang = Counter(); en = Counter()
lang_label = defaultdict(Counter)
for line in open(path, encoding='utf-8'):
    line = line.rstrip('\n')
    if not line or line.startswith('#'): continue
    m = LINE.match(line)
    if not m: continue
    lg, lab = m.group(1), m.group(2)
    by_label[lab] += 1; langs[lab].add(lg); by_lang[lg] += 1; lang_label[lg][lab] += 1
    if lg == 'en': en[lab] += 1
print(f"{'family':10} {'notes':>6} {'langs':>6} {'en':>5}")
for lab in sorted(by_label):
    print(f"{lab:10} {by_label[lab]:6} {len(langs[lab]):6} {en[lab]:5}")
print(f"{'TOTAL':10} {sum(by_label.values()):6} {len(by_lang):6} {sum(en.values()):5}")
print()
labs = sorted(by_label)
print('lang  total  ' + ' '.join(f'{l[:7]:>7}' for l in labs))
for lg, c in sorted(by_lang.items(), key=lambda x: (-x[1], x[0])):
    print(f'{lg:4} {c:6}  ' + ' '.join(f'{lang_label[lg][l]:7}' for l in labs))
