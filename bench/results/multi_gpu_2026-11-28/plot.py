#!/usr/bin/env python3
"""multi_gpu.png from this folder's tables: python3 plot.py (run in this folder)."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def rows(path):
    return [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(path) if l.startswith("| ") and "---" not in l][1:]

mg = rows("call1/multi_gpu.md")
e1 = {r[0]: float(r[2]) for r in rows("call1/e2e.md")}
fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
labels = [f"{r[0].strip('`')}\n{r[1]}" for r in mg]
ax[0].barh(range(len(mg)), [float(r[5]) for r in mg], color="tab:blue")
ax[0].axvline(1.9, color="red", ls="--", label="goal 1.9x")
ax[0].set_yticks(range(len(mg)), labels, fontsize=7)
ax[0].set_xlabel("speed-up, 2 GPUs over 1 (median of 10)")
ax[0].legend()
ax[0].set_title("evaluate_split, 2^30 float32")
names = ["old summary device=0", "old summary device=all", "new summary device=0", "new summary device=all",
         "new npy device=0", "new npy device=all"]
vals = [e1[n] for n in names]
ax[1].barh(range(len(names)), vals, color=["gray", "gray", "tab:green", "tab:green", "tab:orange", "tab:orange"])
ax[1].set_yticks(range(len(names)), names, fontsize=8)
ax[1].set_xlabel("jitrun end to end, s (median of processes; call 1)")
ax[1].set_title("jitrun 'out = x*y + 5', 2^30 float32")
fig.suptitle("2 x NVIDIA H100 80GB HBM3 (NVLink), 2026-11-28")
fig.tight_layout()
fig.savefig("multi_gpu.png", dpi=110)
