package io.ttlstreams.processor;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the failures that Kafka Streams hands to {@link DeadLetterExceptionHandler}: records whose processing threw
 * outside the processors' own error handling (dead-lettered) and punctuations that threw. One instance per
 * application, shared by every stream thread; read by the status line. Thread-safe.
 */
public final class ProcessingFailures {

    private final LongAdder recordFailures = new LongAdder();
    private final LongAdder punctuationFailures = new LongAdder();

    void recordFailed() {
        recordFailures.increment();
    }

    void punctuationFailed() {
        punctuationFailures.increment();
    }

    /** Records whose processing threw and which the handler dead-lettered. */
    public long recordFailures() {
        return recordFailures.sum();
    }

    /** Punctuations that threw. */
    public long punctuationFailures() {
        return punctuationFailures.sum();
    }
}
