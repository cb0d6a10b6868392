package io.ttlstreams.secrets;

import org.apache.logging.log4j.message.AbstractMessageFactory;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.ObjectMessage;
import org.apache.logging.log4j.message.ParameterizedMessageFactory;
import org.apache.logging.log4j.message.SimpleMessage;

/**
 * The Log4j message factory of every logger: messages formatted as usual, then {@link Redaction#redact redacted}.
 * {@code log4j2.component.properties} installs it ({@code log4j2.messageFactory}), so it also covers the loggers of
 * Kafka and of other libraries, which log through SLF4J, and any logging configuration file a deployment brings; a
 * layout or appender configured in a file could be replaced and take the redaction with it.
 *
 * <p>Kafka's own configuration dump, for one, lists {@code ttl.connect.url} as written. The throwable a message
 * carries is {@link Redaction#redact(Throwable) redacted} too; one logged apart from the message is the business of
 * {@link RedactingLogEventFactory}.
 */
public final class RedactingMessageFactory extends AbstractMessageFactory {

    private static final long serialVersionUID = 1L;

    /** Log4j instantiates it by name. */
    public RedactingMessageFactory() {}

    @Override
    public Message newMessage(String message, Object... params) {
        return new RedactedMessage(ParameterizedMessageFactory.INSTANCE.newMessage(message, params));
    }

    @Override
    public Message newMessage(String message) {
        return new RedactedMessage(new SimpleMessage(message));
    }

    @Override
    public Message newMessage(CharSequence message) {
        return new RedactedMessage(new SimpleMessage(message));
    }

    @Override
    public Message newMessage(Object message) {
        return new RedactedMessage(new ObjectMessage(message));
    }

    /**
     * A message whose text is redacted. It shows no parameters, which a layout could print unredacted, but keeps the
     * throwable that a trailing parameter carries, redacted.
     */
    private static final class RedactedMessage implements Message {

        private static final long serialVersionUID = 1L;
        private static final Object[] NO_PARAMETERS = new Object[0];

        private final String format;
        private final String formatted;
        private final transient Throwable throwable;

        RedactedMessage(Message message) {
            this.format = Redaction.redact(message.getFormat());
            this.formatted = Redaction.redact(message.getFormattedMessage());
            this.throwable = Redaction.redact(message.getThrowable());
        }

        @Override
        public String getFormattedMessage() {
            return formatted;
        }

        @Override
        public String getFormat() {
            return format;
        }

        @Override
        public Object[] getParameters() {
            return NO_PARAMETERS;
        }

        @Override
        public Throwable getThrowable() {
            return throwable;
        }

        @Override
        public String toString() {
            return formatted;
        }
    }
}
