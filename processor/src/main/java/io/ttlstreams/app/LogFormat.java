package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Applies {@code ttl.log.format}: the log4j configurations choose their layout with an arbiter on the system
 * property {@value #PROPERTY}, so the configured format is set as that property and log4j reconfigured. Nothing is
 * logged before the configuration is read, so every line takes the format; {@code -Dttl.log.format=json} on the JVM
 * sets it from the very start all the same.
 */
final class LogFormat {

    /** The system property the log4j configurations read. */
    static final String PROPERTY = "ttl.log.format";

    private LogFormat() {}

    /** Switches the log layout to {@code config}'s format when it differs from the one in use. */
    static void apply(TtlStreamsConfig config) {
        String wanted = config.logFormat();
        if (wanted.equals(System.getProperty(PROPERTY, "text"))) {
            return;
        }
        System.setProperty(PROPERTY, wanted);
        Configurator.reconfigure();
    }
}
