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

/**
 * The Log4j log event factory: events as Log4j makes them, with their throwable {@link Redaction#redact(Throwable)
 * redacted}, messages and causes alike. {@code log4j2.component.properties} installs it ({@code
 * log4j2.logEventFactory}) for every logger. It is needed beside {@link RedactingMessageFactory} because a throwable
 * logged on its own ({@code log.warn("text", e)}) reaches the event apart from the message; a driver or Kafka
 * exception can quote a connection string or a user name.
 */
public final class RedactingLogEventFactory implements LogEventFactory, LocationAwareLogEventFactory {

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
        return delegate.createEvent(loggerName, marker, fqcn, location, level, data, properties, Redaction.redact(t));
    }
}
