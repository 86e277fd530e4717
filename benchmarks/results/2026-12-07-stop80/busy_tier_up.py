"""How long a new host kernel runs its quick tier while the program keeps the cores busy
with large calls of it: ``a + 1`` on float32 arrays of 2^20, 2^22 and 2^24 elements, 40
calls in a fresh process whose disk cache holds everything but that kernel.

    python busy_tier_up.py        (the tree on sys.path: PYTHONPATH picks an older one)

Each size in a process of its own (``--child N CACHE``), its cache a copy of one a warm-up
process made (the interpreter's kernel and the runtime's support code: a second run's
state, not a first install's)."""

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

CALLS = 40


def child(n: int) -> None:
    import rocarray as ra
    from rocarray import _elementwise_functions as ef

    a = ra.asarray(np.random.default_rng(0).random(n).astype(np.float32))
    ra.asarray(np.ones(10, np.float32)) * 2.0  # (the process's first kernel: LLVM and the runtime start)
    t0 = time.perf_counter()
    full_at, took = None, []
    for i in range(CALLS):
        s = time.perf_counter()
        a + 1
        took.append(time.perf_counter() - s)
        if full_at is None and next(iter(ef.add._plans.values())).kernel.code.tier == "full":
            full_at = (i, time.perf_counter() - t0)
    total = time.perf_counter() - t0
    print(f"{n} {total * 1e3:.1f} {-1 if full_at is None else full_at[0]} "
          f"{-1 if full_at is None else full_at[1] * 1e3:.1f} {took[0] * 1e3:.2f} {took[-1] * 1e3:.2f}")


def main():
    import rocarray as ra

    base = tempfile.mkdtemp(prefix="busy-base-")
    env = {**os.environ, "ROCARRAY_CACHE_DIR": base}
    subprocess.run([sys.executable, "-c", "import numpy as np, rocarray as ra\n"
                    "from rocarray.compiler.cache import drain_background\n"
                    "a = ra.asarray(np.ones(100000))\n[a * 2.0 for _ in range(30)]\ndrain_background()"],
                   env=env, check=True)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_version()}; NumPy {np.__version__}; rocarray from {ra.__file__}\n")
    print(f"| elements | {CALLS} calls, ms | first full-tier call | at ms | first call ms | last call ms |")
    print("|---|---|---|---|---|---|")
    for n in (1 << 20, 1 << 22, 1 << 24):
        cache = tempfile.mkdtemp(prefix="busy-")
        shutil.rmtree(cache)
        shutil.copytree(base, cache)
        out = subprocess.run([sys.executable, __file__, "--child", str(n)], env={**env, "ROCARRAY_CACHE_DIR": cache},
                             capture_output=True, text=True, check=True).stdout.split()
        print(f"| {int(out[0]):,} | {out[1]} | {out[2]} | {out[3]} | {out[4]} | {out[5]} |")
        shutil.rmtree(cache)
    shutil.rmtree(base)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
    else:
        main()
