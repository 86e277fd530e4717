import os, sys, time, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
warm = ra.asarray(np.ones(1000)); warm + warm; drain_background()
x = ra.asarray(np.arange(-500, 500, dtype=np.dtype(sys.argv[1] if len(sys.argv) > 1 else "int16")))
t0 = time.perf_counter(); ra.sort(x); t1 = time.perf_counter()
drain_background(); t2 = time.perf_counter(); ra.argsort(x); t3 = time.perf_counter()
print(f"first sort {1e3*(t1-t0):.1f} ms, argsort {1e3*(t3-t2):.1f} ms")
