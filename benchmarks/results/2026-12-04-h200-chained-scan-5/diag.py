"""Where a warm call's time goes on a GPU: wall, host until return, device activity (CUPTI)."""
import sys, os, time, cProfile, pstats, io
sys.path.insert(0, "benchmarks")
import numpy as np
import bench_primitives as bp
import rocarray as ra
from rocarray.compiler.cache import drain_background
import torch
from torch.profiler import profile, ProfilerActivity, record_function
from torch.autograd import DeviceType

dev = ra.Device("cuda:0").check()
libs = bp.libraries(dev)
sync = bp.syncs(dev, libs)
want = sys.argv[1].split(",") if len(sys.argv) > 1 else ["cumulative_sum", "x[x", "nonzero", "take", "concat", "transpose", "unique", "sort of rows"]
n = 1 << 24
rng = np.random.default_rng(0)
print(f"copy bw {bp.copy_bandwidth(dev, n) / 1e9:.0f} GB/s (wall)")
# the driver copy's device time
src, dst = ra.ones(n, dtype=ra.float32, device=dev), ra.empty(n, dtype=ra.float32, device=dev)
rt = dev.runtime
cp_fn = lambda: rt.copy_device_to_device(dev.index, dst.data_ptr, src.data_ptr, 4 * n)


def device_profile(fn, s, calls=5):
    for _ in range(3):
        fn()
    s()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(calls):
            with record_function(f"call{i}"):
                fn()
                s()
    ev = prof.events()
    cpu = {e.name: (e.time_range.start, e.time_range.end) for e in ev if e.name.startswith("call")}
    gpu = sorted([(e.time_range.start, e.time_range.end, e.name) for e in ev if e.device_type == DeviceType.CUDA])
    out = []
    for i in range(calls):
        c0, c1 = cpu[f"call{i}"]
        acts = [g for g in gpu if c0 <= g[0] <= c1]
        if not acts:
            continue
        busy = sum(g[1] - g[0] for g in acts)
        out.append((busy, acts[-1][1] - acts[0][0], acts[0][0] - c0, c1 - acts[-1][1], c1 - c0,
                    [(round(g[0] - acts[0][0], 1), round(g[1] - g[0], 1), g[2][:40]) for g in acts]))
    out.sort(key=lambda r: r[4])
    return out[len(out) // 2]


busy, span, lead, tail, tot, acts = device_profile(cp_fn, dev.synchronize)
print(f"driver copy: device busy {busy:.1f} us, lead {lead:.1f}, tail {tail:.1f}, total {tot:.1f}")
for dt in ["float32", "int64"]:
    host = bp.host_data(n, dt, rng)
    data = {lib: bp.library_data(lib, host, dev) for lib in libs}
    for name, (nbytes, impl) in bp.OPS.items():
        if not any(name.startswith(w) for w in want):
            continue
        print(f"\n== {name} {dt}  ({nbytes(data['rocarray']) / 1e6:.0f} MB)")
        for lib in libs:
            f = lambda f=impl[lib], d=data[lib]: f(d)
            s = sync[lib]
            for _ in range(5):
                f()
            s()
            drain_background()
            wall, hst = [], []
            for _ in range(15):
                t0 = time.perf_counter(); f(); s(); wall.append(time.perf_counter() - t0)
                s(); t0 = time.perf_counter(); f(); hst.append(time.perf_counter() - t0); s()
            busy, span, lead, tail, tot, acts = device_profile(f, s)
            print(f"  {lib:8s} wall {min(wall)*1e6:7.1f}  host {min(hst)*1e6:6.1f}  | prof: device busy {busy:6.1f} span {span:6.1f} "
                  f"lead {lead:5.1f} tail {tail:5.1f} total {tot:6.1f}")
            for a in acts:
                print(f"        +{a[0]:7.1f} {a[1]:7.1f}  {a[2]}")
            if lib == "rocarray" and "-p" in sys.argv:
                pr = cProfile.Profile(); pr.enable()
                for _ in range(200):
                    f()
                    s()
                pr.disable()
                o = io.StringIO(); pstats.Stats(pr, stream=o).sort_stats("tottime").print_stats(14)
                print("\n".join(o.getvalue().splitlines()[6:24]))
    del data
