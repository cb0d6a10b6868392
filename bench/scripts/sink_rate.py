#!/usr/bin/env python3
"""How fast the delete sink of the embedded stack applies a backlog of delete commands.

Pauses the sink connector (Connect REST on :8083), inserts N documents due at once into app.sessions, waits until
ttl-streams has emitted their N commands, resumes the sink and times until the documents are gone.

    ./ttl-streams run --set ttl.http.port=8080 &
    /usr/bin/python3 bench/scripts/sink_rate.py 10000 http://127.0.0.1:8080/
"""
import datetime
import json
import re
import sys
import time
import urllib.request

import pymongo

CONNECT = "http://127.0.0.1:8083"
SINK = "mongo-ttl-sink"  # as connect-config renders it


def connect(method, path):
    urllib.request.urlopen(urllib.request.Request(CONNECT + path, method=method)).read()


def emitted(url):
    text = urllib.request.urlopen(url + "metrics").read().decode()
    return float(re.search(r'ttl_deletes_emitted_total\{rule="sessions"\} (\S+)', text).group(1))


def main(count, url):
    sessions = pymongo.MongoClient("mongodb://127.0.0.1:27017").app.sessions
    connect("PUT", "/connectors/%s/pause" % SINK)
    time.sleep(3)
    start_count = emitted(url)
    tag = "rate-%f" % time.time()
    due = datetime.datetime.fromtimestamp(time.time() + 1, datetime.timezone.utc)
    for batch in range(count // 1000):
        sessions.insert_many([{"_id": "%s-%d-%d" % (tag, batch, k), "expireAt": due} for k in range(1000)])
    while emitted(url) - start_count < count:
        time.sleep(0.2)
    time.sleep(2)
    resumed = time.time()
    connect("PUT", "/connectors/%s/resume" % SINK)
    mine = {"_id": {"$regex": "^" + re.escape(tag)}}
    while sessions.count_documents(mine) > 0 and time.time() - resumed < 120:
        time.sleep(0.1)
    elapsed = time.time() - resumed
    print("%d deletes applied %.2f s after resume: %.0f/s; left %d"
          % (count, elapsed, count / elapsed, sessions.count_documents(mine)))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
