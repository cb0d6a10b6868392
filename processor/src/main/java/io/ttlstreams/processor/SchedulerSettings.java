package io.ttlstreams.processor;

import io.ttlstreams.config.ConfirmMode;
import io.ttlstreams.config.GuardLimit;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.readback.DocumentReadBack;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What the {@link ExpirySchedulerProcessor} works with: the configuration, and what start-up learns beside it. Built
 * once, when the topology is.
 *
 * @param config rules, punctuation bounds, throttle, confirmation, dry run, audit, blast-radius limits
 * @param partitions the number of tasks sharing the throttle and the guard's limits: the source topics' largest
 *     partition count
 * @param nanoClock measures a punctuation's own duration; {@link System#nanoTime} outside tests
 * @param readBack reads a document back from MongoDB when its delete goes unconfirmed; empty: no read-back, the
 *     command is only emitted again
 * @param sink whether the sink connector writes now: while it does not, unconfirmed commands wait instead of being
 *     emitted again
 */
public record SchedulerSettings(
        TtlStreamsConfig config,
        int partitions,
        LongSupplier nanoClock,
        Optional<DocumentReadBack> readBack,
        SinkAvailability sink) {

    private static final GuardLimit UNGUARDED = new GuardLimit(0, Duration.ofMinutes(1));

    /** Settings for {@code partitions} source partitions, on the system's clock, without read-back or sink monitor. */
    public SchedulerSettings(TtlStreamsConfig config, int partitions) {
        this(config, partitions, System::nanoTime, Optional.empty(), SinkAvailability.ASSUMED);
    }

    /** These settings with {@code other} as what tells whether the sink writes. */
    public SchedulerSettings withSink(SinkAvailability other) {
        return new SchedulerSettings(config, partitions, nanoClock, readBack, other);
    }

    /** The largest record the producer sends ({@code max.request.size}), which bounds a delete command. */
    int maxRecordBytes() {
        return DeadLetters.producerLimit(config.streamsProperties());
    }

    /** The blast-radius limit of rule {@code rule}; an unguarded one when it has none. */
    GuardLimit guardLimit(String rule) {
        return config.guardLimits().getOrDefault(rule, UNGUARDED);
    }

    /**
     * Whether documents are read back after each command instead of awaiting a delete event: read-back mode, with a
     * read-back service to read through.
     */
    boolean readsFirst() {
        return readBack.isPresent() && config.confirmMode() == ConfirmMode.READ_BACK;
    }

    /**
     * The wait for confirmation after the {@code attempt}-th delete command, doubling from the confirm timeout (from
     * the read delay when {@link #readsFirst}), at most 1 h.
     */
    long confirmWaitMillis(int attempt) {
        long first = readsFirst()
                ? config.confirmReadDelay().toMillis()
                : config.confirmTimeout().toMillis();
        long cap = Math.max(first, Duration.ofHours(1).toMillis());
        int doublings = Math.min(attempt - 1, 40);
        return first > cap >> doublings ? cap : Math.min(cap, first << doublings);
    }
}
