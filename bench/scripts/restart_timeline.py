#!/usr/bin/env python3
"""One rolling restart's steps in time order, from a `bench chaos` run.

Usage: restart_timeline.py RUN_DIR [CONSOLE_FILE] [FROM HH:MM:SS] [TO HH:MM:SS]

RUN_DIR is the directory `bench chaos` names per variant ("instances' configurations, logs and state in ..."); run
it with `--instance-log-config bench/scripts/restart-timeline-log4j2.xml` so that the instances log Kafka's
rebalances. CONSOLE_FILE, the bench's console, adds its lines "HH:MM:SS.mmm instance N: SIGTERM / exited / started /
ready". Each line: time, instance-start (0-1 is instance 0's first JVM), the step.
"""
import glob
import os
import re
import sys

# What a restart's steps look like in the instances' logs, and a short name for each.
STEPS = [
    (re.compile(r"KafkaStreams - .*State transition from (\w+) to (\w+)"), "client {0} -> {1}"),
    (re.compile(r"StreamThread - .*State transition from (\w+) to (\w+)"), "thread {0} -> {1}"),
    (re.compile(r"StreamThread - .*(Informed to shut down|Shutting down clean|Shutting down unclean)"), "{0}"),
    (re.compile(r"TaskManager - .*(Shutdown complete)"), "tasks closed ({0})"),
    (re.compile(r"sending LeaveGroup request"), "LeaveGroup sent"),
    (re.compile(r"leaving group|Leaving group|leave group"), "leaving the group"),
    (re.compile(r"Request joining group due to: (.*?)( as indicated.*)?$"), "rejoin: {0}"),
    (re.compile(r"\(Re-\)joining group"), "JoinGroup sent"),
    (re.compile(r"Successfully joined group with generation Generation\{generationId=(\d+)"), "joined generation {0}"),
    (re.compile(r"Successfully synced group in generation Generation\{generationId=(\d+)"), "synced generation {0}"),
    (re.compile(r"partition revocation took (\d+) ms"), "revocation took {0} ms"),
    (re.compile(r"Finished restoring changelog (\S+)"), "restored {0}"),
    (re.compile(r"Received assignment|Updating assignment"), "assignment received"),
    (re.compile(r"StreamsGroupHeartbeat.*(assignment|epoch).*"), "streams heartbeat: {0}"),
]
TIME = re.compile(r"^(\d\d:\d\d:\d\d\.\d\d\d) ")
ACT = re.compile(r"(\d\d:\d\d:\d\d\.\d\d\d) instance (\d+): (.*)$")
TASKS = re.compile(r"New active tasks: \[(.*?)\]")


def events(run_dir):
    for path in sorted(glob.glob(os.path.join(run_dir, "instance-*-*.log"))):
        tag = os.path.basename(path)[len("instance-"):-len(".log")]
        last_time = None
        with open(path, errors="replace") as log:
            for line in log:
                time = TIME.match(line)
                if time:
                    last_time = time.group(1)
                    for pattern, name in STEPS:
                        found = pattern.search(line)
                        if found:
                            yield last_time, tag, name.format(*[g or "" for g in found.groups()])
                            break
                elif last_time:
                    tasks = TASKS.search(line)
                    if tasks:
                        yield last_time, tag, "active tasks now [" + tasks.group(1) + "]"


def acts(console):
    with open(console, errors="replace") as lines:
        for line in lines:
            found = ACT.search(line)
            if found:
                yield found.group(1), found.group(2) + "  ", "bench: " + found.group(3)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    rows = list(events(argv[1]))
    if len(argv) > 2 and os.path.isfile(argv[2]):
        rows += list(acts(argv[2]))
    start = argv[3] if len(argv) > 3 else "00:00:00"
    end = argv[4] if len(argv) > 4 else "99"
    previous = None
    for time, tag, what in sorted(rows):
        if start <= time <= end and (time, tag, what) != previous:
            print(f"{time}  {tag:5} {what}")
            previous = (time, tag, what)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
