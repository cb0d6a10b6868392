package io.ttlstreams.processor;

import java.util.function.LongSupplier;

/** What one punctuation may still do, in entries and in time, and what it did. */
final class PunctuationBudget {

    /** How many entries a punctuation handles between two looks at its time budget. */
    private static final int CLOCK_CHECK_EVERY = 64;

    private final int entries;
    private final long startedNanos;
    private final long maxNanos;
    private final LongSupplier nanoClock;
    private int handled;
    private int commands;

    PunctuationBudget(int entries, long startedNanos, long maxNanos, LongSupplier nanoClock) {
        this.entries = entries;
        this.startedNanos = startedNanos;
        this.maxNanos = maxNanos;
        this.nanoClock = nanoClock;
    }

    /** Whether the run may handle one more entry: entries are left, and, looked at every so often, time. */
    boolean left() {
        if (handled >= entries) {
            return false;
        }
        return handled % CLOCK_CHECK_EVERY != 0 || handled == 0 || nanoClock.getAsLong() - startedNanos < maxNanos;
    }

    /** Whether the run handled every entry it was allowed. */
    boolean spent() {
        return handled >= entries;
    }

    /** Counts one entry handled. */
    void handled() {
        handled++;
    }

    /** Counts one delete command sent. */
    void commandSent() {
        commands++;
    }

    /** The delete commands sent in this run. */
    int commands() {
        return commands;
    }
}
