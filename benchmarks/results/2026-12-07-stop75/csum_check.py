"""Stop 75: cumulative_sum of float32 / complex64 / complex128 on the device against a
float64 / complex128 reference, with an error bound a reordered sum meets (k * eps *
running sum of |x|) and the same inf / nan pattern; the fuzz's data (specials and
halves) and plain normal data, lengths up to 300,000, along either axis of 2-D too."""
import sys
import numpy as np
import rocarray as ra
dev = ra.Device(sys.argv[1] if len(sys.argv) > 1 else "cuda:0")
rng = np.random.default_rng(75)
special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, -1.0])
def draw(shape, dt, specials):
    a = rng.standard_normal(shape)
    if specials:
        a = np.where(rng.random(shape) < 0.2, rng.choice(special, shape), np.round(a * 2) / 2)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)
bad = 0; checked = 0
for dt in (np.float32, np.complex64, np.complex128, np.float64):
    eps = np.finfo(dt).eps
    for shape, ax in [((n,), 0) for n in (1, 7, 1000, 4097, 65537, 300000)] + [((300, 1000), 1), ((1000, 300), 0), ((3, 70000), 1)]:
        for specials in (False, True):
            h = draw(shape, dt, specials)
            got = ra.asnumpy(ra.cumulative_sum(ra.asarray(h, device=dev), axis=ax))
            wide = np.complex128 if np.dtype(dt).kind == "c" else np.float64
            hw = h.astype(wide)
            ref = np.cumsum(hw, axis=ax)
            def bound(part):  # (the finite inputs' magnitudes: an inf or nan makes the result so anyway)
                return 8 * eps * np.cumsum(np.where(np.isfinite(part), np.abs(part), 0), axis=ax) + 1e-30
            parts = ([(got.real, ref.real, bound(hw.real)), (got.imag, ref.imag, bound(hw.imag))]
                     if np.dtype(dt).kind == "c" else [(got, ref, bound(hw))])
            for g, r, bnd in parts:
                fin = np.isfinite(r)
                same_special = np.array_equal(np.isnan(g), np.isnan(r)) and np.array_equal(np.isinf(g) & ~np.isnan(r), np.isinf(r)) and np.array_equal(np.signbit(g[np.isinf(r)]), np.signbit(r[np.isinf(r)]))
                err = np.abs(g[fin].astype(np.float64) - r[fin]) if fin.any() else np.zeros(1)
                ok = same_special and bool(np.all(err <= bnd[fin] + 4 * np.finfo(dt).tiny)) if fin.any() else same_special
                checked += 1
                if not ok:
                    bad += 1
                    worst = float(np.max(err / bnd[fin])) if fin.any() else 0
                    print(f"BAD {np.dtype(dt).name} {shape} axis {ax} specials {specials}: specials same {same_special}, worst err/bound {worst:.2f}")
print(f"{checked} checked, {bad} bad")
