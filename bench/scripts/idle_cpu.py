#!/usr/bin/env python3
"""Idle CPU of `./ttl-streams run --embedded`: the bundled rules, no writes, measured after start-up.

Starts the embedded run on free ports, waits for its "ttl-streams ready" line and a settling pause, then reads the
JVM's CPU time (utime + stime of /proc/<pid>/stat, all threads) at the start and end of each window of SECONDS
(--windows of them, one after the other), and prints the share of one core it used in each, with the busiest
threads (their Java names from `jcmd Thread.print`) and thread groups (pools added up). Exits 1 when any window's
share is above --max-percent. Any extra arguments go to `run` (e.g. --set ttl.rules=sessions).

    bench/scripts/idle_cpu.py                                        # 60 s, target 5 % of one core
    bench/scripts/idle_cpu.py --seconds 30 --jfr /tmp/idle.jfr          # with a JFR recording of the window
    bench/scripts/idle_cpu.py --windows 5 --top 20                       # five minutes, minute by minute
"""
import argparse
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(stat_path):
    """(utime, stime) of a /proc stat file, in clock ticks."""
    with open(stat_path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)


def thread_ticks(pid):
    ticks = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            ticks[tid] = (name, sum(cpu_ticks("/proc/%d/task/%s/stat" % (pid, tid))))
        except OSError:
            pass  # the thread ended meanwhile
    return ticks


def thread_group(name):
    """A thread's name without its numbers and ids, so that pools add up (kafka request handlers, netty loops)."""
    without_ids = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", name)
    return re.sub(r"(?<=[-_ a-zA-Z])[0-9]+\b", "N", without_ids)


def java_thread_names(pid):
    """Full thread names by kernel thread id, from `jcmd <pid> Thread.print` (the kernel keeps 15 characters)."""
    try:
        dump = subprocess.run(["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    names = {}
    for match in re.finditer(r'^"(.*?)".* nid=(0x[0-9a-f]+)', dump, re.MULTILINE):
        names[str(int(match.group(2), 16))] = match.group(1)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=10, help="seconds after the ready line before measuring")
    parser.add_argument("--max-percent", type=float, default=5.0)
    parser.add_argument("--jfr", help="write a JFR recording (profile settings) of the whole run to this file")
    parser.add_argument("--top", type=int, default=8, help="how many of the busiest threads to print")
    parser.add_argument("--windows", type=int, default=1, help="consecutive windows of SECONDS, each reported")
    parser.add_argument("run_args", nargs="*")
    args = parser.parse_args()

    env = dict(os.environ)
    opts = env.get("TTL_STREAMS_JAVA_OPTS", "")  # the launcher adds these after its own defaults
    if args.jfr:
        # Deep stacks: the default depth of 64 cuts Kafka's and netty's frames off before the cause.
        opts += " -XX:FlightRecorderOptions=stackdepth=256 -XX:StartFlightRecording=settings=profile,filename=%s" % (
            args.jfr)
    env["TTL_STREAMS_JAVA_OPTS"] = opts
    command = [os.path.join(ROOT, "ttl-streams"), "run", "--embedded",
               "--set", "embedded.mongodb.port=0", "--set", "embedded.kafka.port=0",
               "--set", "embedded.connect.port=0", "--set", "ttl.http.port=0"] + args.run_args
    # The launcher execs java, so this pid is the JVM's.
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ready = threading.Event()
    output = []

    def read():
        for line in process.stdout:
            output.append(line)
            if line.startswith("ttl-streams ready"):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    windows = []
    try:
        if not ready.wait(300):
            sys.stdout.write("".join(output[-40:]))
            sys.exit("idle_cpu: run --embedded was not ready within 300 s")
        time.sleep(args.settle)
        stat = "/proc/%d/stat" % process.pid
        sample = (cpu_ticks(stat), thread_ticks(process.pid), time.monotonic())
        for _ in range(args.windows):
            time.sleep(args.seconds)
            following = (cpu_ticks(stat), thread_ticks(process.pid), time.monotonic())
            windows.append((sample, following))
            sample = following
        names = java_thread_names(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
    passed = True
    for number, ((before, threads_before, start), (after, threads_after, end)) in enumerate(windows, 1):
        elapsed = end - start
        share = lambda ticks: 100.0 * ticks / TICKS / elapsed  # noqa: E731
        by_thread = [(ticks - threads_before.get(tid, (name, 0))[1], names.get(tid, name))
                     for tid, (name, ticks) in threads_after.items()]
        groups = {}
        for ticks, name in by_thread:
            count, total = groups.get(thread_group(name), (0, 0))
            groups[thread_group(name)] = (count + 1, total + ticks)
        print("window %d (%.0f-%.0f s after the settling pause):" % (
            number, start - windows[0][0][2], end - windows[0][0][2]))
        for ticks, name in sorted(by_thread, reverse=True)[:args.top]:
            if ticks > 0:
                print("  %6.2f %% of one core  %s" % (share(ticks), name))
        print("  by thread group:")
        for group, (count, ticks) in sorted(groups.items(), key=lambda item: -item[1][1])[:args.top]:
            if ticks > 0:
                print("  %6.2f %% of one core  %s (%d threads)" % (share(ticks), group, count))
        user, system = after[0] - before[0], after[1] - before[1]
        percent = share(user + system)
        passed = passed and percent <= args.max_percent
        print("idle_cpu_percent_of_one_core=%.2f user=%.2f system=%.2f threads=%d window=%d seconds=%.0f target=%.1f"
              % (percent, share(user), share(system), len(threads_after), number, elapsed, args.max_percent))
    sys.exit(0 if passed else 1)

if __name__ == "__main__":
    main()
