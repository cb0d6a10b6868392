package io.ttlstreams.processor;

import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Splits a stream thread's punctuation time among the tasks it runs. Under exactly-once a stream thread punctuates all
 * its tasks inside one transaction (one producer per thread): ten tasks with a backlog, each taking its whole {@code
 * ttl.punctuate.max.duration.ms}, would hold one transaction open ten times as long, and past {@code
 * transaction.timeout.ms} the broker aborts it with every command it carried, which the next attempt would repeat.
 * So each task's punctuation gets at most the thread's time ({@link TtlStreamsConfig#threadPunctuationMaxDuration})
 * divided by the tasks on its thread; under at-least-once, its own budget.
 *
 * <p>One per topology, shared by its schedulers; thread-safe. Tasks join on the stream thread that initialises them
 * and leave when closed.
 */
final class PunctuationTimeShare {

    private final long taskNanos;
    private final Optional<Long> threadNanos;
    private final Map<Thread, Integer> tasksByThread = new ConcurrentHashMap<>();

    PunctuationTimeShare(TtlStreamsConfig config) {
        this.taskNanos = config.punctuateMaxDuration().toNanos();
        this.threadNanos = config.threadPunctuationMaxDuration().map(Duration::toNanos);
    }

    /** Counts a task on the calling thread; returns that thread, for {@link #leave}. */
    Thread join() {
        Thread thread = Thread.currentThread();
        tasksByThread.merge(thread, 1, Integer::sum);
        return thread;
    }

    /** Uncounts a task {@link #join}ed on {@code thread}. */
    void leave(Thread thread) {
        tasksByThread.computeIfPresent(thread, (t, tasks) -> tasks == 1 ? null : tasks - 1);
    }

    /** How long, in nanoseconds, the punctuation about to run on the calling thread may take. */
    long maxNanos() {
        if (threadNanos.isEmpty()) {
            return taskNanos;
        }
        int tasks = Math.max(1, tasksByThread.getOrDefault(Thread.currentThread(), 1));
        return Math.min(taskNanos, threadNanos.get() / tasks);
    }
}
