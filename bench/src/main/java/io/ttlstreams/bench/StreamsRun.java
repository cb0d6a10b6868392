package io.ttlstreams.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;

/**
 * One Kafka Streams instance under measurement: the CPU time its threads used from the moment it reached RUNNING
 * to {@link #finish()}, and its metrics.
 *
 * <p>CPU time is {@link ThreadMXBean#getThreadCpuTime(long)}: time the threads actually ran, whatever else the
 * shared machine did meanwhile, so it varies far less between runs than wall-clock rates. The start sample is taken
 * by a state listener, which Kafka Streams calls on the stream thread as it turns RUNNING, before it processes a
 * record; start-up (group join, opening stores) is left out. Threads are recognized by name: Kafka Streams names
 * them after its client id, {@code <application.id>-<uuid>}, so every run needs an application id that is no
 * other run's prefix.
 */
final class StreamsRun implements AutoCloseable {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * CPU nanoseconds at one instant: of the stream threads, of every thread of this client (stream threads, their
     * producers' network threads, admin and heartbeat threads), and of the whole JVM (broker included).
     */
    record Sample(long wallNanos, long streamThreadCpu, long clientCpu, long processCpu) {
        Sample minus(Sample earlier) {
            return new Sample(
                    wallNanos - earlier.wallNanos,
                    streamThreadCpu - earlier.streamThreadCpu,
                    clientCpu - earlier.clientCpu,
                    processCpu - earlier.processCpu);
        }
    }

    private final KafkaStreams streams;
    private final String applicationId;
    private final AtomicReference<Sample> atRunning = new AtomicReference<>();

    private StreamsRun(KafkaStreams streams, String applicationId) {
        this.streams = streams;
        this.applicationId = applicationId;
    }

    /** Starts {@code streams}, which must be new, and samples its threads when it first turns RUNNING. */
    static StreamsRun start(KafkaStreams streams, String applicationId) {
        if (!THREADS.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("This JVM cannot measure thread CPU time");
        }
        THREADS.setThreadCpuTimeEnabled(true);
        StreamsRun run = new StreamsRun(streams, applicationId);
        streams.setStateListener((newState, oldState) -> {
            if (newState == KafkaStreams.State.RUNNING) {
                run.atRunning.compareAndSet(null, run.sample());
            }
        });
        streams.start();
        return run;
    }

    KafkaStreams streams() {
        return streams;
    }

    /** Waits until the instance reached RUNNING; fails when it errs or after {@code timeout}. */
    void awaitRunning(Duration timeout) throws InterruptedException {
        await("RUNNING", () -> atRunning.get() != null, timeout);
    }

    /** Polls {@code done} every 20 ms; fails when the instance errs or after {@code timeout}. */
    void await(String what, BooleanSupplier done, Duration timeout) throws InterruptedException {
        if (!awaitUpTo(timeout, done)) {
            throw new IllegalStateException(applicationId + ": not " + what + " after " + timeout);
        }
    }

    /**
     * Polls {@code done} every 20 ms until it holds (true) or {@code timeout} passed (false); fails when the
     * instance errs.
     */
    boolean awaitUpTo(Duration timeout, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            KafkaStreams.State state = streams.state();
            if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.PENDING_ERROR) {
                throw new IllegalStateException(applicationId + " failed (state " + state + ")");
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** {@link System#nanoTime()} when the instance first turned RUNNING. */
    long runningAtNanos() {
        return started().wallNanos();
    }

    /** CPU and wall time from RUNNING to now. */
    Sample finish() {
        return sample().minus(started());
    }

    private Sample started() {
        Sample start = atRunning.get();
        if (start == null) {
            throw new IllegalStateException(applicationId + " never reached RUNNING");
        }
        return start;
    }

    /** The sum of every metric of this instance (its clients' included) with this group and name. */
    double metric(String group, String name) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : streams.metrics().entrySet()) {
            if (metric.getKey().group().equals(group) && metric.getKey().name().equals(name)) {
                Object value = metric.getValue().metricValue();
                if (value instanceof Number number && !Double.isNaN(number.doubleValue())) {
                    total += number.doubleValue();
                }
            }
        }
        return total;
    }

    /**
     * Closes the instance and leaves its consumer group, as the production launcher does: a later instance of the
     * same application id (the no-op updates run, the restore) then gets its tasks at once, not after the
     * session timeout.
     */
    @Override
    public void close() {
        streams.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(CLOSE_TIMEOUT));
    }

    /** CPU time of the stream threads, of this client and of the JVM so far. */
    Sample sample() {
        long stream = 0;
        long client = 0;
        String clientPrefix = applicationId + "-";
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (!name.contains(clientPrefix) && !name.endsWith("| " + applicationId)) {
                continue;
            }
            long cpu = Math.max(0, THREADS.getThreadCpuTime(thread.getId()));
            client += cpu;
            if (name.startsWith(clientPrefix) && name.contains("-StreamThread-")) {
                stream += cpu;
            }
        }
        return new Sample(System.nanoTime(), stream, client, OS.getProcessCpuTime());
    }
}
