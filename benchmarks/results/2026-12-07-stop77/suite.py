"""Every test file in its own pytest process with an empty compile cache, SLOTS at once:
python suite.py SLOTS TIMEOUT OUTFILE (SUITE_FILES: space-separated files, else all)."""
import concurrent.futures as cf, os, re, subprocess, sys, tempfile, time, glob

slots, timeout, outfile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
files = os.environ.get("SUITE_FILES", "").split() or sorted(glob.glob("tests/**/test_*.py", recursive=True))
total = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
lines, fails = {}, []
t0 = time.time()


def one(f):
    cache = tempfile.mkdtemp(prefix="rc_")
    env = dict(os.environ, ROCARRAY_CACHE_DIR=cache)
    env.setdefault("ROCARRAY_TEST_DEVICES", "cuda:0")
    s = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f], env=env,
                           capture_output=True, text=True, timeout=timeout)
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += "\nTIMEOUT"
    return f, out, time.time() - s


with cf.ThreadPoolExecutor(slots) as ex:
    progress = open(outfile + ".progress", "w")
    for fut in cf.as_completed([ex.submit(one, f) for f in files]):
        f, out, dt = fut.result()
        last = [l for l in out.strip().splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", l)]
        summary = last[-1].strip("= ") if last else "?"
        lines[f] = f"{f}: {summary} ({dt:.0f} s)"
        progress.write(lines[f] + "\n"); progress.flush()
        for k in total:
            m = re.search(rf"(\d+) {k}", summary)
            if m:
                total[k] += int(m.group(1))
        if (" failed" in summary or " error" in summary or "TIMEOUT" in out or summary == "?"):
            fails.append((f, out[-6000:]))
            progress.write(f"===== {f}\n{out[-3000:]}\n"); progress.flush()
with open(outfile, "w") as fh:
    for f in files:
        fh.write(lines[f] + "\n")
    fh.write(f"TOTAL {total} wall {time.time() - t0:.0f} s\n")
    for f, out in fails:
        fh.write(f"\n===== {f}\n{out}\n")
print(open(outfile).read()[-8000:])
