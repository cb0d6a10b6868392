#!/usr/bin/env python3
"""Where the stream thread's wall time goes during one mass drain, from a JFR recording of DrainOnly.

Cuts the recording to one drain's span (first deadline to last command committed, as DrainOnly prints them in
epoch milliseconds) and one thread (a regular expression on its name), then sums the thread's parks, monitor
waits, sleeps and socket/file waits (only those the recording kept: drain.jfc keeps those of 1 ms or more) by what
it was doing (producer flush, transaction commit or offsets, punctuation, consumer poll, other), and counts its
execution samples the same way, with the frames under the punctuation.

    java -Xmx4g -XX:FlightRecorderOptions=stackdepth=256 -XX:StartFlightRecording=settings=drain.jfc,filename=d.jfr \\
        -cp 'bench/target/ttl-streams-bench.jar:bench/target/lib/*' io.ttlstreams.bench.DrainOnly 100000
    python3 bench/scripts/drain_profile.py d.jfr 'bench-drain-02.*StreamThread' FIRST_DEADLINE_MS LAST_COMMAND_MS
"""
import collections
import datetime
import json
import re
import subprocess
import sys

EVENTS = ("jdk.ExecutionSample,jdk.ThreadPark,jdk.JavaMonitorEnter,jdk.JavaMonitorWait,jdk.ThreadSleep,"
          "jdk.SocketRead,jdk.SocketWrite,jdk.FileRead,jdk.FileWrite")
# The first of these found anywhere on the stack names what the thread was doing.
CAUSES = [("flush", "KafkaProducer.flush"), ("commitTransaction", "commitTransaction"),
          ("sendOffsetsToTransaction", "sendOffsetsToTransaction"), ("beginTransaction", "beginTransaction"),
          ("punctuate", "DueDrain.punctuate"), ("poll", "Consumer.poll")]
FRAMEWORK = ("java/lang/Thread.", "org/apache/kafka/streams/processor/internals/")


def epoch_ms(text):
    match = re.match(r"(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)", text.replace("Z", "+00:00"))
    return datetime.datetime.fromisoformat(
        match.group(1) + (match.group(2) or ".0")[:7] + match.group(3)).timestamp() * 1000


def millis(duration):
    match = re.match(r"PT(?:(\d+)M)?([\d.]+)S", duration)
    return (int(match.group(1) or 0) * 60 + float(match.group(2))) * 1000 if match else 0.0


def frames(event):
    stack = event["values"].get("stackTrace") or {}
    return [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in stack.get("frames", [])]


def cause(stack):
    for name, needle in CAUSES:
        if any(needle in frame for frame in stack):
            return name
    return "other"


def main(recording, thread, start_ms, end_ms):
    printed = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events", EVENTS, recording],
                             capture_output=True, text=True, check=True).stdout
    waits, counts = collections.defaultdict(float), collections.Counter()
    samples, under_punctuation = collections.Counter(), collections.Counter()
    for event in json.loads(printed)["recording"]["events"]:
        values = event["values"]
        name = (values.get("eventThread") or values.get("sampledThread") or {}).get("javaName") or ""
        at = epoch_ms(values["startTime"])
        if not re.search(thread, name) or not start_ms <= at <= end_ms:
            continue
        stack = frames(event)
        doing = cause(stack)
        if event["type"] == "jdk.ExecutionSample":
            samples[doing] += 1
            if doing == "punctuate":
                under_punctuation.update(f for f in set(stack) if not f.startswith(FRAMEWORK))
        else:
            key = (event["type"].split(".")[-1], doing)
            waits[key] += min(millis(values.get("duration", "PT0S")), end_ms - at)
            counts[key] += 1
    window = end_ms - start_ms
    print(f"window {window} ms")
    for (kind, doing), ms in sorted(waits.items(), key=lambda item: -item[1]):
        share = 100 * ms / window
        print(f"{kind:18s} in {doing:25s} {ms:8.0f} ms {share:5.1f}% of the window, {counts[(kind, doing)]} events")
    print(f"waits kept, in all: {sum(waits.values()):.0f} ms, {100 * sum(waits.values()) / window:.1f}% of the window")
    total = sum(samples.values())
    for doing, n in samples.most_common():
        print(f"execution samples in {doing:25s} {n:6d} {100 * n / max(total, 1):5.1f}%")
    punctuation = samples["punctuate"]
    for frame, n in under_punctuation.most_common(15):
        print(f"  under the punctuation: {frame} {100 * n / max(punctuation, 1):.0f}%")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
