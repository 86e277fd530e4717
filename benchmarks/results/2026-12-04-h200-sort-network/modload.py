"""How long cuModuleLoadData takes for a cubin, alone and beside a busy Python thread."""
import sys, threading, time
import numpy as np
from llvmlite import ir
import rocarray as ra
from rocarray.compiler import network_gpu
from rocarray.targets import target_for
dev = ra.Device("cuda:0")
(ra.asarray(np.arange(4.0), device=dev) + 1).get()
t = target_for("sm_90")
m = ir.Module("n"); m.triple = t.triple; m.data_layout = t.data_layout
network_gpu.build_network_module(m, t, "rk_net", 32)
cubin = t.compile(m)
api = dev.runtime.api
def loads(tag):
    ts = []
    for _ in range(5):
        t0 = time.perf_counter(); api.module_load_data(cubin); ts.append((time.perf_counter() - t0) * 1e3)
    print(tag, " ".join(f"{x:.2f}" for x in ts), "ms", flush=True)
loads("alone")
stop = [False]
def spin():
    while not stop[0]:
        sum(range(1000))
th = threading.Thread(target=spin); th.start()
loads("beside a busy thread")
sys.setswitchinterval(0.0002)
loads("beside a busy thread, switch 0.2 ms")
stop[0] = True; th.join()
sys.setswitchinterval(0.005)
from rocarray.compiler import cache as C
print("background worker alive:", C._background is not None)
