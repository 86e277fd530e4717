"""Does the NVPTX assembler (nvJitLink or ptxas) release the GIL, and do two assembles
overlap?  Sequential vs two threads, and main-thread Python progress during one."""
import threading, time
from llvmlite import ir
from rocarray.targets import target_for
from rocarray.compiler import radix_gpu
t = target_for("sm_90")
print("assembler", t.assembler)
def ptx(kk):
    m = ir.Module("x"); m.triple = t.triple; m.data_layout = t.data_layout
    radix_gpu.build_radix_module(m, t, "rk", kk, 0, radix_gpu.PARTS["passes"])
    return t.emit_ptx(m)
a, b = ptx("u32"), ptx("f32")
t0 = time.perf_counter(); t.assemble(a); t1 = time.perf_counter(); t.assemble(b); t2 = time.perf_counter()
print(f"sequential: {1e3*(t1-t0):.0f} + {1e3*(t2-t1):.0f} ms")
th = [threading.Thread(target=t.assemble, args=(p,)) for p in (a, b)]
t0 = time.perf_counter()
for x in th: x.start()
for x in th: x.join()
print(f"two threads: {1e3*(time.perf_counter()-t0):.0f} ms")
n = 0; done = []
x = threading.Thread(target=lambda: (t.assemble(a), done.append(1)))
t0 = time.perf_counter(); x.start()
while not done: n += 1
print(f"main-thread loop turns during one assemble: {n} in {1e3*(time.perf_counter()-t0):.0f} ms")
t0 = time.perf_counter(); m = 0
while time.perf_counter() - t0 < 0.2: m += 1
print(f"turns in 200 ms alone: {m}")
