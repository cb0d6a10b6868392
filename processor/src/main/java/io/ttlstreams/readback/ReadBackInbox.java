package io.ttlstreams.readback;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One task's answers from the read-back thread, drained by the task's punctuator so that every state change happens
 * on the stream thread inside its transaction. Its size is bounded by the task's reads in flight, one per document at
 * most. Once closed (the task went), answers are dropped: the entries they were for are read again by their next
 * owner when they come overdue there.
 */
public final class ReadBackInbox {

    private final Queue<ReadResult> results = new ConcurrentLinkedQueue<>();
    private volatile boolean open = true;

    /** The next answer, or null when there is none. */
    public ReadResult poll() {
        return results.poll();
    }

    /** Whether the task still wants answers; a request of a closed inbox is not even read. */
    boolean isOpen() {
        return open;
    }

    void deliver(ReadResult result) {
        if (open) {
            results.add(result);
        }
    }

    /** Drops what is waiting and every later answer. */
    public void close() {
        open = false;
        results.clear();
    }
}
