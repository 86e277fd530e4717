import os, sys, time, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
import numpy as np
import rocarray as ra
from rocarray import _sorting_functions as sf
from rocarray.compiler.cache import drain_background
if sys.argv[1] == "merge":
    real = sf._radix_line
    sf._radix_line = lambda work, n, payload: False if (work.device.kind == "cpu" and n < 4096 and not sf.network_sorts(n, work.dtype, work.device, payload)) else real(work, n, payload)
warm = ra.asarray(np.ones(1000)); warm + warm; drain_background()
x = ra.asarray(np.arange(-500, 500, dtype=np.int16)[::-1].copy())
t0 = time.perf_counter(); y = ra.sort(x); t1 = time.perf_counter()
assert np.array_equal(y.get(), np.sort(x.get()))
drain_background(); t2 = time.perf_counter(); ra.argsort(x); t3 = time.perf_counter()
print(sys.argv[1], f"first sort {1e3*(t1-t0):.1f} ms, argsort {1e3*(t3-t2):.1f} ms")
