package io.ttlstreams.processor;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the failures that Kafka Streams hands to {@link DeadLetterExceptionHandler}: records whose processing threw
 * outside the processors' own error handling (dead-lettered) and punctuations that threw; and those it hands to
 * {@link SendFailureHandler}: records the producer failed to send. One instance per
 * application, shared by every stream thread; read by the status line and {@code /metrics}. Thread-safe.
 */
public final class ProcessingFailures {

    private final LongAdder recordFailures = new LongAdder();
    private final LongAdder punctuationFailures = new LongAdder();
    private final LongAdder sendFailures = new LongAdder();

    void recordFailed() {
        recordFailures.increment();
    }

    void punctuationFailed() {
        punctuationFailures.increment();
    }

    void sendFailed() {
        sendFailures.increment();
    }

    /**
     * Records the producer failed to send, whatever {@link SendFailureHandler} then did: dead-lettered, dropped (a dead
     * letter itself) or failed the stream thread (a record of Kafka Streams' own topics).
     */
    public long sendFailures() {
        return sendFailures.sum();
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
