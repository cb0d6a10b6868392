package io.ttlstreams.config;

import java.time.Duration;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The options of start-up: how long {@code run} waits for the Kafka cluster and Kafka Connect before it gives up with
 * one line naming what it could not reach, instead of retrying forever or failing with a stack trace.
 */
public final class StartupOptions {

    private static final String GROUP = "Start-up";

    public static final String STARTUP_TIMEOUT_MS_CONFIG = "ttl.startup.timeout.ms";
    public static final String STARTUP_TIMEOUT_MS_DOC = "How long, in milliseconds, run waits at start-up for a broker"
            + " in bootstrap.servers to answer, and separately for Kafka Connect (ttl.connect.url) to accept the"
            + " connectors (retrying with a growing pause while it cannot be reached or answers 409 or 5xx). When"
            + " either does not happen in time, run exits with code 2 and one line naming the option to check.";
    public static final long STARTUP_TIMEOUT_MS_DEFAULT = 30_000L;

    private StartupOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        STARTUP_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        STARTUP_TIMEOUT_MS_DEFAULT,
                        // At most a day: a longer wait is a hang, not a start-up.
                        Range.between(1, Duration.ofDays(1).toMillis()),
                        Importance.MEDIUM,
                        STARTUP_TIMEOUT_MS_DOC);
    }
}
