#!/usr/bin/env python3
"""Top frames of a JFR recording's CPU samples, per thread group.

Reads `jfr print --events jdk.ExecutionSample --stack-depth 300 FILE` (runs it when given a .jfr file) and prints,
for the samples of the threads whose names match --threads, the methods with the most samples on top of the stack
(self) and the methods with the most samples anywhere on the stack (total, each sample counted once per method;
--frames lists only the methods it matches there).
Shares are of the selected threads' samples. Optionally restricts the samples to those whose stack contains
--under (a substring of a frame), e.g. DueDrain.punctuate.

    bench/scripts/jfr_top.py run.jfr --threads StreamThread --top 25
"""

import argparse
import collections
import re
import subprocess
import sys

FRAME = re.compile(r"^\s+(\S+?)\(.*\)\s+line:")
THREAD = re.compile(r'sampledThread = "(.*)" \(javaThreadId')


def samples(lines):
    """Yields (thread name, [frames, top first]) per jdk.ExecutionSample."""
    thread, frames, in_stack = None, [], False
    for line in lines:
        if line.startswith("jdk.ExecutionSample"):
            thread, frames, in_stack = None, [], False
        elif (m := THREAD.search(line)) is not None:
            thread = m.group(1)
        elif "stackTrace = [" in line:
            in_stack = True
        elif in_stack and (m := FRAME.match(line)) is not None:
            frames.append(m.group(1))
        elif in_stack and line.strip() == "]":
            in_stack = False
            yield thread, frames


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("recording", help="a .jfr file, or - for `jfr print` output on stdin")
    parser.add_argument("--threads", default="StreamThread", help="regex on the sampled thread's name")
    parser.add_argument("--under", help="only samples with a frame containing this text")
    parser.add_argument("--frames", help="regex: list only matching methods under total (e.g. io\\.ttlstreams)")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()

    if args.recording == "-":
        lines = sys.stdin
    else:
        jfr = subprocess.Popen(
            ["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "300", args.recording],
            stdout=subprocess.PIPE, text=True)
        lines = jfr.stdout
    wanted = re.compile(args.threads)
    frames_wanted = re.compile(args.frames) if args.frames else None
    self_counts, total_counts, n = collections.Counter(), collections.Counter(), 0
    for thread, frames in samples(lines):
        if thread is None or not wanted.search(thread) or not frames:
            continue
        if args.under and not any(args.under in f for f in frames):
            continue
        n += 1
        self_counts[frames[0]] += 1
        total_counts.update(f for f in set(frames) if frames_wanted is None or frames_wanted.search(f))
    if n == 0:
        sys.exit("no samples of threads matching " + args.threads)
    print(f"{n} samples of threads matching {args.threads!r}" + (f" under {args.under!r}" if args.under else ""))
    for title, counts in (("self", self_counts), ("total", total_counts)):
        print(f"\n{title}:")
        for method, count in counts.most_common(args.top):
            print(f"{100.0 * count / n:6.1f}%  {count:7d}  {method}")


if __name__ == "__main__":
    main()
