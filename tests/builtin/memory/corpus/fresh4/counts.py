import re,collections
rx=re.compile(r'^([a-z]{2,3})!([a-z]+) \| (.+)$')
def load(fn):
    out=[]
    for l in open(fn,encoding='utf-8'):
        l=l.rstrip('\n')
        if not l or l.startswith('#'): continue
        m=rx.match(l); out.append((m.group(1),m.group(2),m.group(3)))
    return out
A=load('attack.txt'); B=load('benign.txt')
print(f"attack notes: {len(A)}  languages: {len({l for l,_,_ in A})}")
print(f"{'family':10} {'notes':>5} {'langs':>5} {'en':>4}")
for fam in 'override role conceal leak exfil creds persist rce forge hidden'.split():
    rows=[r for r in A if r[1]==fam]
    print(f"{fam:10} {len(rows):5} {len({r[0] for r in rows}):5} {sum(r[0]=='en' for r in rows):4}")
print(f"\nbenign notes: {len(B)}  languages: {len({l for l,_,_ in B})}")
for k in ('hard','plain'):
    rows=[r for r in B if r[1]==k]
    print(f"{k:10} {len(rows):5} ({100*len(rows)/len(B):.1f}%) langs {len({r[0] for r in rows})} en {sum(r[0]=='en' for r in rows)}")
print("\nper language (attack / benign):")
ca=collections.Counter(r[0] for r in A); cb=collections.Counter(r[0] for r in B)
langs=sorted(set(ca)|set(cb),key=lambda x:(-(ca[x]+cb[x]),x))
print(f"languages in total (either file): {len(langs)}")
line=[]
for x in langs: line.append(f"{x} {ca[x]}/{cb[x]}")
for i in range(0,len(line),8): print("  "+"  ".join(line[i:i+8]))
