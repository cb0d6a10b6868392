package io.ttlstreams.resync;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps what a resync would publish, for this module's resync tests (the processor's test sink is not in its
 * test-jar).
 */
final class ListSink implements ResyncSink {

    final List<ResyncEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void publish(ResyncEvent event) {
        events.add(event);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
}
