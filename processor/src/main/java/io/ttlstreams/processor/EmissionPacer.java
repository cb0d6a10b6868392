package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paces one task's delete commands while the sink does not write ({@link SinkAvailability}), and while it recovers:
 * during an outage at most a small number per second go out, probing, instead of the whole backlog queueing for the
 * sink; once it writes again, the limit doubles every second (as a TCP slow start) until it exceeds what the task can
 * emit anyway, so that a recovering primary is not met by every command that came due meanwhile at once. As
 * CockroachDB's row-level TTL yields to foreground load, and MongoDB 8.3 runs its TTL deletes at low priority.
 *
 * <p>It only lowers a punctuation's budget: what is held back stays due in the schedule and goes out in a later
 * punctuation, never earlier than its deadline. Steps are counted on the punctuator's wall-clock timestamps, never a
 * clock read here, so tests drive it exactly.
 */
final class EmissionPacer {

    private static final Logger LOG = LoggerFactory.getLogger(EmissionPacer.class);

    private static final long STEP_MS = 1_000;
    /** {@link #limit} when not pacing. */
    private static final long UNPACED = 0;

    private final int outagePerSecond;
    private final long unpacedAbove;
    private final Counter paced;
    private final TaskId task;

    /** Commands allowed in the current step, or {@link #UNPACED}. */
    private long limit = UNPACED;

    private long stepStart;
    private long inStep;
    /** Whether this punctuation's budget is the pacer's. */
    private boolean binding;

    /**
     * @param outagePerSecond commands per second while the sink does not write, and the first step after
     * @param unpacedAbove the per-second limit past which the task is no longer paced
     * @param paced counts punctuations whose due entries the pacer held back
     * @param task the task paced, for the log
     */
    EmissionPacer(int outagePerSecond, long unpacedAbove, Counter paced, TaskId task) {
        if (outagePerSecond < 1) {
            throw new IllegalArgumentException("Pacing needs at least 1 command per second, not " + outagePerSecond);
        }
        this.outagePerSecond = outagePerSecond;
        this.unpacedAbove = unpacedAbove;
        this.paced = paced;
        this.task = task;
    }

    /**
     * How many entries the punctuation at {@code now} may handle, at most {@code budget}: all of it unless pacing.
     *
     * @param sinkWriting whether the sink writes at {@code now}
     */
    int budget(long now, boolean sinkWriting, int budget) {
        if (!sinkWriting && (limit == UNPACED || limit > outagePerSecond)) {
            if (limit == UNPACED) {
                LOG.info(
                        "Task {}: the sink does not write; at most {} delete commands per second until it does",
                        task,
                        outagePerSecond);
            }
            limit = outagePerSecond;
            startStep(now);
        } else if (limit != UNPACED && (now - stepStart >= STEP_MS || now < stepStart)) {
            if (sinkWriting) {
                limit *= 2;
            }
            startStep(now);
            if (limit > unpacedAbove) {
                limit = UNPACED;
                LOG.info("Task {}: the sink writes again; delete commands are no longer paced", task);
            }
        }
        if (limit == UNPACED) {
            binding = false;
            return budget;
        }
        long left = Math.max(0, limit - inStep);
        binding = left < budget;
        return (int) Math.min(budget, left);
    }

    /**
     * The punctuation emitted {@code commands}; {@code budgetSpent}: it handled every entry its budget allowed, so
     * that, when the budget was the pacer's, due entries may have been held back.
     */
    void ran(int commands, boolean budgetSpent) {
        if (limit != UNPACED) {
            inStep += commands;
            if (binding && budgetSpent) {
                paced.increment();
            }
        }
    }

    private void startStep(long now) {
        stepStart = now;
        inStep = 0;
    }
}
