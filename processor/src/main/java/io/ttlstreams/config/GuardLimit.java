package io.ttlstreams.config;

import java.time.Duration;

/**
 * The blast-radius limit of one rule: at most {@code maxDueOnArrival} documents due on arrival deleted within {@code
 * window} (application-wide; each task allows its share); 0 turns the guard off for the rule.
 *
 * @param maxDueOnArrival the documents due on arrival let through per window; 0 for no guard
 * @param window the sliding window they are counted over
 */
public record GuardLimit(int maxDueOnArrival, Duration window) {

    /** Whether the guard holds anything for this rule. */
    public boolean enabled() {
        return maxDueOnArrival > 0;
    }

    /**
     * This task's share of the limit, for {@code partitions} tasks: the limit divided by them, rounded up, so that a
     * small limit still lets a single document through on every task.
     */
    public int share(int partitions) {
        return (int) Math.ceil((double) maxDueOnArrival / Math.max(1, partitions));
    }
}
