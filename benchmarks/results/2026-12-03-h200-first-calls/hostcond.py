"""Host time (until return) of warm rocarray calls under three conditions: back to back,
each after an idle sync, each after a PyTorch op and its sync."""
import time
import numpy as np, torch
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
S = rng.standard_normal((1000, 256)).astype(np.float32); L = rng.integers(0, 5000, 200000)
s, l = ra.asarray(S, device="cuda:0"), ra.asarray(L, device="cuda:0")
ts = torch.as_tensor(S, device="cuda")
dev = s.device
cases = {"s + s": lambda: s + s, "sort rows": lambda: ra.sort(s, axis=1),
         "argsort rows": lambda: ra.argsort(s, axis=1, descending=True),
         "sort flat": lambda: ra.sort(ra.reshape(s, (-1,))), "unique_counts": lambda: ra.unique_counts(l),
         "torch sort rows": lambda: torch.sort(ts, dim=1)}
for name, f in cases.items():
    for _ in range(5): f()
    drain_background(); dev.synchronize()
    out = []
    for cond in ("back-to-back", "after sync", "after torch"):
        hs, ws = [], []
        for _ in range(30):
            if cond == "after sync":
                dev.synchronize()
            elif cond == "after torch":
                torch.sort(ts, dim=1); torch.cuda.synchronize()
            t0 = time.perf_counter(); f(); h = time.perf_counter()
            if cond != "back-to-back":
                dev.synchronize(); torch.cuda.synchronize()
            hs.append(h - t0); ws.append(time.perf_counter() - t0)
        dev.synchronize()
        out.append(f"{cond}: host {min(hs)*1e6:.0f}/{sorted(hs)[15]*1e6:.0f}" + ("" if cond == "back-to-back" else f" wall {min(ws)*1e6:.0f}/{sorted(ws)[15]*1e6:.0f}"))
    print(f"{name:16s} " + " | ".join(out), flush=True)
