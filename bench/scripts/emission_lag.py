#!/usr/bin/env python3
"""Emission lag of a running ttl-streams under load, from its Prometheus histogram.

Inserts RATE documents per second for SECONDS seconds into app.sessions of the embedded stack's MongoDB stand-in,
each due 2 s after its insert, waits for them to come due, and prints which share of the delete commands emitted
meanwhile went out within each bucket of ttl_expiry_lag_seconds (command emitted minus deadline).

    ./ttl-streams run --set ttl.http.port=8080 &
    /usr/bin/python3 bench/scripts/emission_lag.py 1000 20 http://127.0.0.1:8080/
"""
import datetime
import re
import sys
import time
import urllib.request

import pymongo


def histogram(url):
    text = urllib.request.urlopen(url + "metrics").read().decode()
    pattern = r'ttl_expiry_lag_seconds_bucket\{rule="sessions",le="([^"]+)"\} (\S+)'
    return {m.group(1): float(m.group(2)) for m in re.finditer(pattern, text)}


def main(rate, seconds, url):
    before = histogram(url)
    sessions = pymongo.MongoClient("mongodb://127.0.0.1:27017").app.sessions
    per_batch = max(1, rate // 10)
    inserted = 0
    for _ in range(seconds * 10):
        slot = time.time()
        sessions.insert_many([
            {"_id": "lag-%f-%d" % (slot, k),
             "expireAt": datetime.datetime.fromtimestamp(slot + 2 + k / rate, datetime.timezone.utc)}
            for k in range(per_batch)])
        inserted += per_batch
        time.sleep(max(0.0, 0.1 - (time.time() - slot)))
    time.sleep(6)
    after = histogram(url)
    emitted = after["+Inf"] - before["+Inf"]
    shares = " ".join("<=%ss:%.2f" % (le, (after[le] - before[le]) / emitted)
                      for le in ["0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0"])
    print("inserted=%d emitted=%d %s" % (inserted, emitted, shares))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
