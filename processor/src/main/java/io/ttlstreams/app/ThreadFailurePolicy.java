package io.ttlstreams.app;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

/**
 * Decides what happens to a stream thread that died of an uncaught error: it is replaced, resuming its tasks from the
 * last commit, at most {@code maxReplacements} times within a sliding {@code window}; the next failure, or any
 * failure of the JVM itself (a {@link VirtualMachineError} such as running out of memory, which a new thread would
 * not cure), shuts this instance down instead. So does a broker's refusal (an authorization or authentication
 * failure: a missing ACL, a revoked user; a request or protocol it does not support, such as {@code
 * group.protocol=streams} on brokers without the streams rebalance protocol), which a new thread would meet again at
 * once.
 *
 * <p>Shutting down this instance ({@link StreamThreadExceptionResponse#SHUTDOWN_CLIENT}) rather than every instance
 * of the application: a cause local to one machine (a full disk, a broken state directory) then costs one instance,
 * whose tasks move to the others, and the orchestrator restarts it; a cause that travels with the data reaches each
 * instance in turn and stops each, loudly. Unbounded replacement would instead hide a failure that recurs forever.
 *
 * <p>Separate from Kafka Streams so that the decision can be tested alone. Thread-safe.
 */
final class ThreadFailurePolicy {

    /** How far down a chain of causes to look; a chain can be circular. */
    private static final int MAX_CAUSES = 16;

    private final int maxReplacements;
    private final long windowMillis;
    private final LongSupplier clockMillis;
    private final Deque<Long> recentReplacements = new ArrayDeque<>();
    private long replacements;

    /**
     * @param maxReplacements how many replacements the window allows; 0 shuts down at the first failure
     * @param window          the sliding window over which replacements are counted
     * @param clockMillis     the current time in milliseconds
     */
    ThreadFailurePolicy(int maxReplacements, Duration window, LongSupplier clockMillis) {
        if (maxReplacements < 0) {
            throw new IllegalArgumentException("maxReplacements must be at least 0, got " + maxReplacements);
        }
        this.maxReplacements = maxReplacements;
        this.windowMillis = window.toMillis();
        this.clockMillis = clockMillis;
    }

    /** The answer to a thread that died of {@code error}; counts it when the thread is replaced. */
    synchronized StreamThreadExceptionResponse decide(Throwable error) {
        if (isJvmFailure(error) || isRefusal(error)) {
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        long now = clockMillis.getAsLong();
        while (!recentReplacements.isEmpty() && recentReplacements.peekFirst() <= now - windowMillis) {
            recentReplacements.removeFirst();
        }
        if (recentReplacements.size() >= maxReplacements) {
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        recentReplacements.addLast(now);
        replacements++;
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Threads replaced so far. */
    synchronized long replacements() {
        return replacements;
    }

    /** Replacements counted in the current window. */
    synchronized int recentReplacements() {
        return recentReplacements.size();
    }

    /**
     * A broker refused this instance's credentials, an operation, or a request it does not support: replacing the
     * thread cannot help.
     */
    static boolean isRefusal(Throwable error) {
        return causes(error)
                .anyMatch(cause -> cause instanceof AuthorizationException
                        || cause instanceof AuthenticationException
                        || cause instanceof UnsupportedVersionException);
    }

    /**
     * Kafka Streams may wrap the error; a VM failure anywhere in the (first few links of the) chain is one. A stack
     * overflow is not: it is a property of what the thread was doing, not of the JVM.
     */
    private static boolean isJvmFailure(Throwable error) {
        return causes(error)
                .anyMatch(cause -> cause instanceof VirtualMachineError && !(cause instanceof StackOverflowError));
    }

    /** {@code error} and the first few links of its chain of causes, which Kafka Streams may have wrapped it in. */
    static Stream<Throwable> causes(Throwable error) {
        return Stream.iterate(error, Objects::nonNull, Throwable::getCause).limit(MAX_CAUSES);
    }
}
