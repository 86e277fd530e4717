import numpy as np, rocarray as ra, timeit, time, sys
rng = np.random.default_rng(0)
a2 = rng.standard_normal((64, 64)).astype(np.float32); A2 = ra.asarray(a2)
i = rng.integers(0, 64, 16); I = ra.asarray(i)
B = ra.asarray(rng.standard_normal((16, 64)).astype(np.float32)); Bt = ra.asarray(rng.standard_normal((64, 16)).astype(np.float32))
big = ra.asarray(np.zeros((2048, 2048), np.float32)); bi = ra.asarray(rng.permutation(2048)[:1024]); bv = ra.asarray(np.ones((1024, 2048), np.float32))
g = dict(A2=A2, I=I, B=B, Bt=Bt, big=big, bi=bi, bv=bv)
for s in ["A2[I] = B", "A2[:, I] = Bt", "A2[I] = 1.0", "big[bi] = bv", "big[:, bi] = 2.0"]:
    for _ in range(30): exec(s, g)
    time.sleep(0.3)
    num = 200 if "big" not in s else 5
    t = min(timeit.repeat(s, globals=g, number=num, repeat=5)) / num * 1e6
    print(sys.argv[1], f"{s:20s} {t:9.2f} us")
