#!/usr/bin/env python3
"""Idle CPU of `./ttl-streams run --embedded`: the bundled rules, no writes, measured after start-up.

Starts the embedded run on free ports, waits for its "ttl-streams ready" line and a settling pause, then reads the
JVM's CPU time (utime + stime of /proc/<pid>/stat, all threads) twice, SECONDS apart, and prints the share of one
core it used in between, with the busiest threads (names as the kernel keeps them, 15 characters). Exits 1 when
the share is above --max-percent. Any extra arguments go to `run` (e.g. --set ttl.rules=sessions).

    flock /work/wt/.it.lock bench/scripts/idle_cpu.py                    # 60 s, target 5 % of one core
    bench/scripts/idle_cpu.py --seconds 30 --jfr /tmp/idle.jfr          # with a JFR recording of the window
"""
import argparse
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(stat_path):
    with open(stat_path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))


def thread_ticks(pid):
    ticks = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            ticks[tid] = (name, cpu_ticks("/proc/%d/task/%s/stat" % (pid, tid)))
        except OSError:
            pass  # the thread ended meanwhile
    return ticks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=10, help="seconds after the ready line before measuring")
    parser.add_argument("--max-percent", type=float, default=5.0)
    parser.add_argument("--jfr", help="write a JFR recording (profile settings) of the whole run to this file")
    parser.add_argument("run_args", nargs="*")
    args = parser.parse_args()

    env = dict(os.environ)
    opts = env.get("TTL_STREAMS_JAVA_OPTS", "-Xmx1g")
    if args.jfr:
        opts += " -XX:StartFlightRecording=settings=profile,filename=%s" % args.jfr
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
    try:
        if not ready.wait(300):
            sys.stdout.write("".join(output[-40:]))
            sys.exit("idle_cpu: run --embedded was not ready within 300 s")
        time.sleep(args.settle)
        stat = "/proc/%d/stat" % process.pid
        before, threads_before, start = cpu_ticks(stat), thread_ticks(process.pid), time.monotonic()
        time.sleep(args.seconds)
        after, threads_after, elapsed = cpu_ticks(stat), thread_ticks(process.pid), time.monotonic() - start
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
    percent = 100.0 * (after - before) / TICKS / elapsed
    busiest = sorted(
        ((ticks - threads_before.get(tid, (name, 0))[1], name) for tid, (name, ticks) in threads_after.items()),
        reverse=True)[:8]
    for ticks, name in busiest:
        if ticks > 0:
            print("  %-16s %6.2f %% of one core" % (name, 100.0 * ticks / TICKS / elapsed))
    print("idle_cpu_percent_of_one_core=%.2f seconds=%.0f target=%.1f" % (percent, elapsed, args.max_percent))
    sys.exit(0 if percent <= args.max_percent else 1)


if __name__ == "__main__":
    main()
