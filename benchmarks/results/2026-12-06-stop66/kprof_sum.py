"""Sums ncu's csv by op (the MARK_i kernels) and library order."""
import csv, sys, re, collections
lines = open(sys.argv[1]).read().splitlines()
names = {}
for l in lines:
    m = re.match(r"MARK_(\d+) = (.*)", l)
    if m: names["MARK_" + m.group(1)] = m.group(2)
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.DictReader(lines[start:]))
k = collections.OrderedDict()
for r in rows:
    k.setdefault(r["ID"], {"name": r["Kernel Name"]})[r["Metric Name"]] = r["Metric Value"].replace(",", "")
seen = collections.Counter()
libs = sys.argv[2].split(",") if len(sys.argv) > 2 else ["rocarray", "cupy", "torch"]
for kid, v in k.items():
    nm = v["name"]
    if nm.startswith("MARK_"):
        print(f"\n== {names.get(nm, nm)} / {libs[seen[nm] % len(libs)]}"); seen[nm] += 1; continue
    t = float(v.get("gpu__time_duration.sum", 0)) / 1e3
    rd = float(v.get("dram__bytes_read.sum", 0)) / 1e6; wr = float(v.get("dram__bytes_write.sum", 0)) / 1e6
    print(f"  {t:8.1f} us  rd {rd:7.1f} MB wr {wr:7.1f} MB  grid {v.get('launch__grid_size')} blk {v.get('launch__block_size')}  {nm[:70]}")
