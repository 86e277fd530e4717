"""First calls in new processes (empty caches, CUDA_CACHE_DISABLE=1): the bench's int16 ops
one after another, then the ranking program's first run; trees/variants alternating.
python .devrun/firstab.py OUT ROUNDS"""
import os, subprocess, sys, tempfile
CHILD = r'''
import os, sys, time
import numpy as np
sys.path.insert(0, "benchmarks")
import rocarray as ra
if os.environ.get("SWITCH_OFF"):
    from rocarray.compiler import cache as C
    C.WORKER_SWITCH_SECONDS = 0.005
from rocarray.compiler.cache import drain_background
dev = ra.Device(os.environ.get("DEV", "cuda:0"))
host = np.arange(-500, 500, dtype=np.int16)
x = ra.asarray(host, device=dev); idx = ra.asarray(np.arange(0, 1000, 3), device=dev); sq = ra.reshape(x, (20, 50))
dev.synchronize()
ops = [("cumulative_sum", lambda: ra.cumulative_sum(x)), ("x[x > 0]", lambda: x[x > 0]),
       ("nonzero", lambda: ra.nonzero(x)), ("take", lambda: ra.take(x, idx)),
       ("concat", lambda: ra.concat([x, x])), ("transpose copy", lambda: sq.T.copy()),
       ("sort", lambda: ra.sort(x)), ("argsort", lambda: ra.argsort(x)),
       ("searchsorted", lambda: ra.searchsorted(ra.sort(x), idx)), ("isin", lambda: ra.isin(x, idx))]
out = []
for name, fn in ops:
    drain_background()
    t0 = time.perf_counter(); fn(); dev.synchronize(); out.append((name, (time.perf_counter() - t0) * 1e3))
if not os.environ.get("RANKING"):  # (RANKING=1: the ranking program's runs too, as in firstab_trees.md)
    print("RESULT " + ";".join(f"{n}={v:.1f}" for n, v in out) + f";sum={sum(v for _, v in out):.1f}")
    sys.exit(0)
from bench_ranking import program_rocarray
rng = np.random.default_rng(0)
scores = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
labels = ra.asarray(rng.integers(0, 5000, 200000), device=dev)
thr = ra.asarray(np.linspace(-3, 3, 1000).astype(np.float32), device=dev)
dev.synchronize()
t0 = time.perf_counter(); program_rocarray(scores, labels, thr); dev.synchronize(); out.append(("ranking first run", (time.perf_counter() - t0) * 1e3))
t0 = time.perf_counter(); program_rocarray(scores, labels, thr); dev.synchronize(); out.append(("ranking second run", (time.perf_counter() - t0) * 1e3))
print("RESULT " + ";".join(f"{n}={v:.1f}" for n, v in out))
'''
outf, rounds = sys.argv[1], int(sys.argv[2])
devices = os.environ.get("DEVICES", "cuda:0 cpu").split()  # (the two-core runs: DEVICES=cuda:0)
variants = {f"{d} switch 5 ms": (os.getcwd(), {"SWITCH_OFF": "1", "DEV": d}) for d in devices}
variants.update({f"{d} switch 0.2 ms": (os.getcwd(), {"DEV": d}) for d in devices})
variants = {k: variants[k] for k in sorted(variants)}
res = {v: [] for v in variants}
for r in range(rounds):
    for v, (path, extra) in variants.items():
        env = dict(os.environ, ROCARRAY_CACHE_DIR=tempfile.mkdtemp(), CUDA_CACHE_DISABLE="1", PYTHONPATH=path, **extra)
        p = subprocess.run(os.environ.get("PREFIX", "").split() + [sys.executable, "-c", CHILD], env=env,
                           capture_output=True, text=True)
        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        if not line:
            print(v, p.stderr[-2000:]); continue
        res[v].append(dict(kv.split("=") for kv in line[0][7:].split(";")))
        print(v, r, line[0][7:], flush=True)
names = list(next(iter(res.values()))[0])
with open(outf, "w") as f:
    f.write("| first call, ms (each round a new process) | " + " | ".join(variants) + " |\n|---|" + "---|" * len(variants) + "\n")
    for n in names:
        f.write(f"| {n} | " + " | ".join(" / ".join(d[n] for d in res[v]) for v in variants) + " |\n")
print(open(outf).read())
