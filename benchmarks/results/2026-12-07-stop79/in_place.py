import time, numpy as np, rocarray as ra
n = 1 << 22
def t(f, k=9):
    for _ in range(3): f()
    ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
h = np.random.default_rng(0).standard_normal(n).astype("float32"); a = ra.asarray(h.copy())
h2 = h.copy(); b = ra.asarray(h.copy())
def ra_inplace():
    global a
    a += 1
def np_inplace():
    global h
    h += 1
def ra_mul():
    global b
    b *= b
def np_mul():
    global h2
    h2 *= h2
print("numpy a+1", t(lambda: h + 1), "a+=1", t(np_inplace), "a*=a", t(np_mul))
print("rocarray a+1", t(lambda: a + 1), "a+=1", t(ra_inplace), "a*=a", t(ra_mul))
