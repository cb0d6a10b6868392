package io.ttlstreams.secrets;

import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.impl.DefaultLogEventFactory;
import org.apache.logging.log4j.core.impl.LocationAwareLogEventFactory;
import org.apache.logging.log4j.core.impl.LogEventFactory;
import org.apache.logging.log4j.core.impl.ReusableLogEventFactory;
import org.apache.logging.log4j.core.util.Constants;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.SimpleMessage;

/**
 * The Log4j log event factory of every logger: events as Log4j makes them, with their message {@link
 * Redaction#redact(String) redacted} and their throwable {@link Redaction#redact(Throwable) redacted}, messages and
 * causes alike. {@code log4j2.component.properties} installs it ({@code log4j2.logEventFactory}), so it also covers
 * the loggers of Kafka and of other libraries, which log through SLF4J, and any logging configuration file a
 * deployment brings; a layout or appender configured in a file could be replaced and take the redaction with it.
 *
 * <p>Kafka's own configuration dump, for one, lists {@code ttl.connect.url} as written, and a driver or Kafka
 * exception can quote a connection string or a user name.
 */
public final class RedactingLogEventFactory implements LogEventFactory {

    /** The factory Log4j would use without this one: garbage-free events where thread locals are allowed. */
    private final LocationAwareLogEventFactory delegate =
            Constants.ENABLE_THREADLOCALS ? new ReusableLogEventFactory() : new DefaultLogEventFactory();

    /** Log4j instantiates it by name. */
    public RedactingLogEventFactory() {}

    @Override
    public LogEvent createEvent(
            String loggerName,
            Marker marker,
            String fqcn,
            Level level,
            Message data,
            List<Property> properties,
            Throwable t) {
        return createEvent(loggerName, marker, fqcn, null, level, data, properties, t);
    }

    @Override
    public LogEvent createEvent(
            String loggerName,
            Marker marker,
            String fqcn,
            StackTraceElement location,
            Level level,
            Message data,
            List<Property> properties,
            Throwable t) {
        // Log4j's plain message of the redacted text: no parameters, which a layout could print unredacted. The
        // throwable of a trailing parameter reaches this factory as t too, and is redacted there.
        Message redacted = data == null ? null : new SimpleMessage(Redaction.redact(data.getFormattedMessage()));
        return delegate.createEvent(
                loggerName, marker, fqcn, location, level, redacted, properties, Redaction.redact(t));
    }
}
