import numpy as np, rocarray as ra, timeit, time, sys
rng = np.random.default_rng(0)
for n in (256, 16384, 200000):
    a = rng.standard_normal(n).astype(np.float32); b = rng.standard_normal(n).astype(np.float32); i = rng.integers(0, n, n)
    A, B, I = ra.asarray(a), ra.asarray(b), ra.asarray(i)
    g = dict(A=A, B=B, I=I, a=a, b=b, i=i)
    for _ in range(50): A[I] = B; A[I] = 2.0
    time.sleep(0.5)
    num = max(3, 2000000 // n)
    for s in ("A[I] = B", "A[I] = 2.0", "a[i] = b"):
        t = min(timeit.repeat(s, globals=g, number=num, repeat=5)) / num * 1e6
        print(sys.argv[1], n, f"{s:12s} {t:9.2f} us")
