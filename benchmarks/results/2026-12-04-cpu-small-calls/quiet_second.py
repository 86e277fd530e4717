"""The quiet A/B's program run twice on one cache: the second run's compiles and time."""
import os, subprocess, sys, tempfile
CHILD = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "quiet_ab.py")).read().split("CHILD = r'''")[1].split("'''")[0]
CHILD = CHILD.replace('print("RESULT", *[f"{v:.0f}" for v in out])',
                      'import rocarray.cache as rc; i = rc.info(); print("RESULT", *[f"{v:.0f}" for v in out], "compiled", i["compiled"], "disk_hits", i["disk_hits"])')
for r in range(int(sys.argv[1])):
    for q in ("0.01", "0.1"):
        cache = tempfile.mkdtemp()
        for run in (1, 2):
            env = dict(os.environ, ROCARRAY_CACHE_DIR=cache, QUIET=q)
            import time as _t
            t0 = _t.perf_counter()
            p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
            wall = (_t.perf_counter() - t0) * 1e3
            line = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
            print(q, "run", run, line[0] if line else p.stderr[-1500:], f"process {wall:.0f} ms", flush=True)
