"""Counts of a GPU fuzz run's findings by op, kind and class; the progress files' last lines."""
import collections, glob, json, sys
c = collections.Counter()
for path in sorted(glob.glob(sys.argv[1] + "/fail_*.jsonl")):
    for line in open(path):
        j = json.loads(line)
        if j["kind"] == "info":
            continue
        m = j.get("msg", "")
        cls = ("out of memory" if "OUT_OF_MEMORY" in m or "out of memory" in m else
               "regrouped float scan (differs from the wide reference too)" if "against the wide" in m else
               "NaN payload of a cast" if "cast bits" in m else
               "an element no writer wrote" if "duplicates" in m else
               "the fuzz's own check of 1-D complex repeated writes (broadcast error)" if "could not be broadcast" in m else m[:80])
        c[(j["name"], j["kind"], cls)] += 1
for (name, kind, cls), v in sorted(c.items(), key=lambda kv: -kv[1]):
    print(f"{v:7d}  {name:12s} {kind:10s} {cls}")
for path in sorted(glob.glob(sys.argv[1] + "/progress_*.txt")):
    print(path.rsplit("/", 1)[1] + ": " + open(path).read().strip().splitlines()[-1][:160])
