package io.ttlstreams.resync;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A sink that records what would be published; {@link #failFlushes} makes the next flushes fail. */
final class RecordingSink implements ResyncSink {

    final List<ResyncEvent> events = new CopyOnWriteArrayList<>();
    final AtomicInteger flushes = new AtomicInteger();
    final AtomicInteger failFlushes = new AtomicInteger();
    volatile boolean closed;

    @Override
    public void publish(ResyncEvent event) {
        events.add(event);
    }

    @Override
    public void flush() {
        flushes.incrementAndGet();
        if (failFlushes.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
            throw new org.apache.kafka.common.KafkaException("broker unreachable");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
