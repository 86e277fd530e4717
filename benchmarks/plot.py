"""The performance plots of the documentation, made from the benchmarks' JSON reports.

    python benchmarks/plot.py --out docs/performance RUN.json [RUN.json ...]

Each JSON file is a report a benchmark wrote with ``--json PATH`` (or a stored Markdown
report converted by ``benchmarks/report.py``). Every plot says under it the date, the
machine and the command of the run it shows, and the file it was read from. Besides the
PNGs, ``figures.md`` in the output folder lists each plot with that caption; the
Performance page includes it. Rerun this script when the figures change.

Plots, by the benchmark a report comes from:
  elementwise   first call of a new signature (beside CuPy's NVRTC compile on a GPU), warm
                per-call time of ``a + b``, throughput (GPU: TB/s beside CuPy and PyTorch;
                CPU: speed relative to NumPy)
  reductions    first call of a new reduction signature, throughput (as above)
  user kernels  first call of ``ElementwiseKernel``, ``fuse``, ``ReductionKernel``
                (beside CuPy's), warm per-call time beside CuPy's
  second run    a fresh process on a warm disk cache: import, device set-up, first op and
                new signatures, beside CuPy and PyTorch
  primitives, linalg and FFT, random
                each case's peer time over rocarray's, per peer (or the faster peer's)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEERS = {"rocarray": "#3949ab", "NumPy": "#8d99ae", "CuPy": "#2a9d8f", "PyTorch": "#e76f51"}


def _slug(report: dict) -> str:
    """A short name of the run's device: 'nvidia-h200', 'cpu'."""
    device = report["meta"].get("device") or report["title"]
    m = re.search(r"\(([^,)]*?)(,|\))", device)
    name = m.group(1) if m and "cpu" not in device.split()[0] else "cpu"
    name = name.split(":")[-1].strip()
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def _machine(report: dict) -> str:
    meta = report["meta"]
    parts = [meta[k] for k in ("device", "host") if meta.get(k)]
    if not parts:  # an older report without the machine lines: the title names the device
        parts = [report["title"].partition("(")[2].rstrip(")") or report["title"]]
    return "; ".join(parts)


def caption(report: dict, source: str) -> str:
    """Date, machine and command of the run, and the report's file."""
    meta = report["meta"]
    return (f"{meta.get('date', 'date not recorded in the report')} · {_machine(report)} · "
            f"`{meta.get('command', 'command not recorded in the report')}` · from `{source}`")


def _section(report: dict, start: str) -> dict | None:
    for s in report["sections"]:
        if s["heading"].lower().startswith(start.lower()):
            return s
    return None


def _table(report: dict, start: str, index: int = 0):
    s = _section(report, start)
    if s is None or len(s["tables"]) <= index:
        return None
    return s["tables"][index]


def _figure_text(fig, text: str) -> None:
    fig.text(0.01, 0.01, text.replace("`", ""), fontsize=6.5, color="#555555", wrap=True)


def _save(fig, out_dir: str, name: str, cap: str, figures: list, title: str) -> None:
    _figure_text(fig, cap)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    figures.append((title, name, cap))


def _number(text_lines: list, pattern: str):
    for line in text_lines:
        m = re.search(pattern, line)
        if m:
            return float(m.group(1))
    return None


def _first_call_bars(ax, labels, values, refs, unit="ms"):
    ax.barh(labels, values, color=PEERS["rocarray"])
    for name, value, color in refs:
        ax.axvline(value, color=color, linestyle="--", linewidth=1.2, label=f"{name}: {value:.1f} {unit}")
    ax.set_xscale("log")
    ax.set_xlim(right=max(list(values) + [r[1] for r in refs]) * 6)  # room for the legend
    ax.set_xlabel(f"first call, {unit} (log scale; lower is better)")
    ax.invert_yaxis()
    if refs:
        ax.legend(loc="upper right", fontsize=7.5)


def plot_elementwise(report, source, out_dir, figures):
    slug = _slug(report)
    cap = caption(report, source)
    t1, t1b = _table(report, "1. Cold"), _table(report, "1b.")
    if t1:
        rows = [(f"{r[0]} ({r[2]})", r[1]) for r in t1["rows"]]
        if t1b:
            rows += [(f"{r[0]} ({r[2]}, interpreter off)", r[1]) for r in t1b["rows"]]
        text = _section(report, "1. Cold")["text"]
        refs = []
        cupy = _number(text, r"CuPy ElementwiseKernel.*?median first call: \*\*([\d.]+) ms")
        if cupy is not None:
            refs.append(("CuPy ElementwiseKernel, new kernel (NVRTC), median", cupy, PEERS["CuPy"]))
        fig, ax = plt.subplots(figsize=(9, 0.32 * len(rows) + 1.6))
        _first_call_bars(ax, [r[0] for r in rows], [r[1] for r in rows], refs)
        ax.set_title("Elementwise: first call of a new dtype signature (empty disk cache)", fontsize=10)
        _save(fig, out_dir, f"{slug}-elementwise-first-call.png", cap, figures,
              f"First call of a new elementwise signature ({slug})")
    t3 = _table(report, "3. Warm")
    if t3:
        labels = [r[0] for r in t3["rows"]]
        values = [r[1] for r in t3["rows"]]
        colors = [next((c for k, c in PEERS.items() if lab.startswith(k)), "#999999") for lab in labels]
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(labels) + 1.6))
        ax.barh(labels, values, color=colors)
        ax.invert_yaxis()
        ax.set_xlabel("host time per call, us (lower is better)")
        ax.set_title("Warm call of a + b on 1,000 float32")
        _save(fig, out_dir, f"{slug}-warm-call.png", cap, figures, f"Warm per-call time of a + b ({slug})")
    _throughput(report, "4. Throughput", "op", slug, "elementwise", cap, out_dir, figures)


def _throughput(report, heading, what, slug, name, cap, out_dir, figures):
    t = _table(report, heading)
    if not t:
        return
    cols = t["columns"]
    labels = [r[0] for r in t["rows"]]
    if any("TB/s" in c for c in cols):  # a GPU: bandwidth beside the peers and the copy
        series = [(c.split(" TB/s")[0], i) for i, c in enumerate(cols) if c.endswith("TB/s")]
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(labels) * len(series) / 2 + 2))
        h = 0.8 / len(series)
        for k, (peer, i) in enumerate(series):
            vals = [r[i] if isinstance(r[i], (int, float)) and not math.isnan(r[i]) else 0 for r in t["rows"]]
            ax.barh([j + k * h for j in range(len(labels))], vals, height=h, label=peer,
                    color=PEERS.get(peer, "#999999"))
        copy = _number(_section(report, heading)["text"], r"device copy \(read \+ write\): \*\*([\d.]+) TB/s")
        if copy:
            ax.axvline(copy, color="black", linestyle=":", label=f"device copy: {copy:.2f} TB/s")
        ax.set_yticks([j + h * (len(series) - 1) / 2 for j in range(len(labels))], labels)
        ax.invert_yaxis()
        ax.set_xlabel("bytes moved per second, TB/s (higher is better)")
        ax.legend(fontsize=8, loc="lower right")
    else:  # the CPU: NumPy's time over rocarray's
        i = next(i for i, c in enumerate(cols) if c.startswith("NumPy /") or c.startswith("rocarray speed"))
        vals = [r[i] for r in t["rows"]]
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(labels) + 1.8))
        ax.barh(labels, vals, color=[PEERS["rocarray"] if v >= 1 else "#c0392b" for v in vals])
        ax.axvline(1.0, color=PEERS["NumPy"], linestyle="--", label="NumPy")
        ax.invert_yaxis()
        ax.set_xlabel("NumPy time / rocarray time (>1: rocarray faster)")
        ax.legend(fontsize=8)
    ax.set_title(f"Throughput, {_section(report, heading)['heading'].split(',', 1)[-1].strip()}")
    _save(fig, out_dir, f"{slug}-{name}-throughput.png", cap, figures, f"Throughput, {name} ({slug})")


def plot_reductions(report, source, out_dir, figures):
    slug = _slug(report)
    cap = caption(report, source)
    t = _table(report, "First call")
    if t:
        fig, ax = plt.subplots(figsize=(8, 0.32 * len(t["rows"]) + 1.6))
        _first_call_bars(ax, [f"{r[0]} ({r[2]})" for r in t["rows"]], [r[1] for r in t["rows"]], [])
        ax.set_title("Reductions: first call of a new signature (empty disk cache)", fontsize=10)
        _save(fig, out_dir, f"{slug}-reduction-first-call.png", cap, figures,
              f"First call of a new reduction signature ({slug})")
    _throughput(report, "Throughput", "reduction", slug, "reductions", cap, out_dir, figures)


def plot_user_kernels(report, source, out_dir, figures):
    slug = _slug(report)
    cap = caption(report, source)
    t = _table(report, "1. First call")
    if t:
        text = _section(report, "1. First call")["text"]
        refs = []
        for name, pattern in (("CuPy ElementwiseKernel", r"CuPy ElementwiseKernel.*?first call: \*\*([\d.]+) ms"),
                              ("CuPy fuse", r"CuPy `fuse`.*?: \*\*([\d.]+) ms"),
                              ("CuPy ReductionKernel", r"CuPy ReductionKernel.*?first call: \*\*([\d.]+) ms")):
            v = _number(text, pattern)
            if v is not None:
                refs.append((name + " (NVRTC), median", v,
                             {"CuPy ElementwiseKernel": "#2a9d8f", "CuPy fuse": "#76c7b7",
                              "CuPy ReductionKernel": "#1d6b61"}[name]))
        fig, ax = plt.subplots(figsize=(8, 0.3 * len(t["rows"]) + 1.8))
        _first_call_bars(ax, [r[0] for r in t["rows"]], [r[1] for r in t["rows"]], refs)
        ax.set_title("User kernels: first call on a new dtype (empty disk cache)", fontsize=10)
        _save(fig, out_dir, f"{slug}-user-kernel-first-call.png", cap, figures,
              f"First call of ElementwiseKernel, fuse and ReductionKernel ({slug})")
    t = _table(report, "3. Warm")
    if t and "CuPy" in t["columns"]:
        labels = [r[0] for r in t["rows"]]
        ir, ic = t["columns"].index("rocarray"), t["columns"].index("CuPy")
        fig, ax = plt.subplots(figsize=(8, 0.5 * len(labels) + 1.6))
        h = 0.4
        ax.barh([j for j in range(len(labels))], [r[ir] for r in t["rows"]], height=h, label="rocarray",
                color=PEERS["rocarray"])
        ax.barh([j + h for j in range(len(labels))], [r[ic] for r in t["rows"]], height=h, label="CuPy",
                color=PEERS["CuPy"])
        ax.set_yticks([j + h / 2 for j in range(len(labels))], labels)
        ax.invert_yaxis()
        ax.set_xlabel("host time per call, us, 1,000 float32 (lower is better)")
        ax.legend(fontsize=8)
        ax.set_title("Warm calls of user kernels")
        _save(fig, out_dir, f"{slug}-user-kernel-warm-call.png", cap, figures,
              f"Warm per-call time of user kernels ({slug})")


def plot_second_run(report, source, out_dir, figures):
    t = report["sections"][0]["tables"][0] if report["sections"][0]["tables"] else None
    t = t or next((tb for s in report["sections"] for tb in s["tables"]), None)
    if not t:
        return
    slug = _slug(report)
    cols = t["columns"][1:]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    n = len(t["rows"])
    w = 0.8 / n
    for k, row in enumerate(t["rows"]):
        vals = [v if isinstance(v, (int, float)) and not math.isnan(v) else 0 for v in row[1:]]
        ax.bar([j + k * w for j in range(len(cols))], vals, width=w, label=row[0],
               color=PEERS.get(row[0], "#999999"))
    ax.set_xticks([j + w * (n - 1) / 2 for j in range(len(cols))], cols, rotation=15, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms, median (log scale)")
    ax.set_title("A second run: a fresh process on the disk cache its first run left")
    ax.legend(fontsize=8)
    _save(fig, out_dir, f"{slug}-second-run.png", caption(report, source), figures,
          f"A user's second run ({slug})")


def _against_peers(report, source, out_dir, figures, name, title):
    """Each row's peer time over rocarray's (>1: rocarray faster), one bar per peer: the
    columns "<peer> / rocarray", or "ratio" (the faster peer's), of the report's tables."""
    slug = _slug(report)
    for s in report["sections"]:
        for t in s["tables"]:
            cols = t["columns"]
            ratio = [(c.split(" /")[0], i) for i, c in enumerate(cols) if c.endswith("/ rocarray")]
            if not ratio and "ratio" in cols:
                ratio = [("faster peer", cols.index("ratio"))]
            if not ratio:
                continue
            dtype = cols.index("dtype") if "dtype" in cols else None
            labels = [str(r[0]) + (f" ({r[dtype]})" if dtype is not None else "") for r in t["rows"]]
            fig, ax = plt.subplots(figsize=(8, 0.3 * len(labels) * len(ratio) + 1.8))
            h = 0.8 / len(ratio)
            for k, (peer, i) in enumerate(ratio):
                vals = [r[i] if isinstance(r[i], (int, float)) and not math.isnan(r[i]) else 0 for r in t["rows"]]
                ax.barh([j + k * h for j in range(len(labels))], vals, height=h, label=peer,
                        color=PEERS.get(peer, "#6d597a"))
            ax.axvline(1.0, color="black", linestyle=":", linewidth=1)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # (they overlap)
            ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(0.2, 0.5, 1.0)))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.set_yticks([j + h * (len(ratio) - 1) / 2 for j in range(len(labels))], labels, fontsize=7)
            ax.invert_yaxis()
            ax.set_xlabel("peer time / rocarray time (log scale; >1: rocarray faster)")
            ax.legend(fontsize=8, loc="lower right")
            ax.set_title(f"{title} beside its peers", fontsize=10)
            _save(fig, out_dir, f"{slug}-{name}.png", caption(report, source), figures, f"{title} ({slug})")
            return


def plot_primitives(report, source, out_dir, figures):
    _against_peers(report, source, out_dir, figures, "primitives", "Scans, masks, gathers, copies and sorts")


def plot_linalg_fft(report, source, out_dir, figures):
    _against_peers(report, source, out_dir, figures, "linalg-fft", "matmul, linalg and FFTs")


def plot_random(report, source, out_dir, figures):
    _against_peers(report, source, out_dir, figures, "random", "Random numbers")


PLOTS = (("rocarray elementwise benchmark", plot_elementwise),
         ("rocarray reduction benchmark", plot_reductions),
         ("rocarray user-kernel benchmark", plot_user_kernels),
         ("A second run's first results", plot_second_run),
         ("rocarray parallel-primitive benchmark", plot_primitives),
         ("rocarray linear algebra and FFT benchmark", plot_linalg_fft),
         ("rocarray.random benchmark", plot_random))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", help="JSON reports (--json output of the benchmarks)")
    p.add_argument("--out", required=True, help="the folder for the PNGs and figures.md")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    figures: list = []
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        source = os.path.relpath(path)
        for title, plot in PLOTS:
            if report["title"].startswith(title):
                plot(report, source, args.out, figures)
                break
        else:
            print(f"{path}: not a report this script plots ({report['title']!r})")
    with open(os.path.join(args.out, "figures.md"), "w") as f:
        f.write("<!-- written by benchmarks/plot.py: rerun it, do not edit -->\n\n")
        for title, name, cap in figures:
            f.write(f"### {title}\n\n![{title}](performance/{name})\n\n{cap}\n\n")
    for title, name, _ in figures:
        print(f"wrote {os.path.join(args.out, name)}: {title}")


if __name__ == "__main__":
    main()
