#!/usr/bin/env python3
"""Lateness inside and outside a `bench chaos` run's rolling-restart windows, and each restarted instance's time back to
ready, per variant.

Usage: restart_lateness.py OUT_DIR CONSOLE_FILE

OUT_DIR is the run's --out (scenarios.csv, documents-<variant>.csv); CONSOLE_FILE the bench's console, whose lines
"[variant] HH:MM:SS.mmm instance N: ready M ms after its start" give the times back to ready (the first three are the
instances' first starts, the rest the restarts). A document is inside when its deadline falls in the scenario's
window (start_s to end_s of scenarios.csv); renewed documents have no lateness and are left out. Percentiles are
nearest-rank; the bench's own table computes its p99 over the same window and may differ in the last digit.
"""
import csv
import math
import re
import statistics
import sys

READY = re.compile(r"\[(\S+)\] \S+ instance \d+: ready (\d+) ms after its start")


def nearest_rank(values, percent):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def figures(values):
    return "%.2f / %.2f / %.2f" % (statistics.median(values), nearest_rank(values, 99), max(values))


def main(out_dir, console):
    ready = {}
    with open(console) as lines:
        for line in lines:
            if (m := READY.match(line)) is not None:
                ready.setdefault(m.group(1), []).append(int(m.group(2)) / 1000)
    with open(out_dir + "/scenarios.csv") as f:
        windows = [r for r in csv.DictReader(f) if r["scenario"].startswith("rolling restart")]
    print("| variant | inside p50 / p99 / max (s) | outside p50 / p99 / max (s) | documents inside"
          " | documents with a second command | back to ready after each restart (s) |")
    print("|---|---|---|---|---|---|")
    for window in windows:
        variant = window["variant"]
        start, end = float(window["start_s"]) * 1000, float(window["end_s"]) * 1000
        inside, outside, second = [], [], 0
        with open("%s/documents-%s.csv" % (out_dir, variant)) as f:
            for row in csv.DictReader(f):
                if row["commands"] and int(row["commands"]) > 1:
                    second += 1
                if row["renewed"] == "true" or not row["lateness_ms"]:
                    continue
                lateness = int(row["lateness_ms"]) / 1000
                (inside if start <= int(row["deadline_ms"]) <= end else outside).append(lateness)
        restarts = ", ".join("%.1f" % s for s in ready.get(variant, [])[3:])
        print("| %s | %s | %s | %d | %d | %s |" % (variant, figures(inside), figures(outside), len(inside), second, restarts))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
