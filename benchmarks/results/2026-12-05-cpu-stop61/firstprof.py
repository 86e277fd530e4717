import os, sys, time, tempfile, cProfile, pstats
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
warm = ra.asarray(np.ones(1000)); warm + warm; drain_background()
x = ra.asarray(np.arange(-500, 500, dtype=np.dtype(sys.argv[1] if len(sys.argv) > 1 else "int16")))
pr = cProfile.Profile(); pr.enable(); ra.sort(x); pr.disable()
pstats.Stats(pr).sort_stats("cumulative").print_stats(30)
