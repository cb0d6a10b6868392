package io.ttlstreams.secrets;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log event of every logger, at every level, as the text an appender would write: the formatted
 * message and the stack trace of its throwable. While open, nothing goes to the configured appenders; closing
 * reloads the logging configuration.
 */
public final class LogCapture implements AutoCloseable {

    private final LoggerContext context = LoggerContext.getContext(false);
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogCapture() {}

    /** Starts capturing. */
    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        capture.install();
        return capture;
    }

    /** Everything logged so far, one event per line (stack traces span several). */
    public String text() {
        return String.join("\n", lines);
    }

    /** How many events were logged so far. */
    public int events() {
        return lines.size();
    }

    private void install() {
        Configuration configuration = context.getConfiguration();
        AbstractAppender appender = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                StringWriter text = new StringWriter();
                text.append(event.getLevel().name())
                        .append(' ')
                        .append(event.getLoggerName())
                        .append(" - ")
                        .append(event.getMessage().getFormattedMessage());
                if (event.getThrown() != null) {
                    text.append('\n');
                    event.getThrown().printStackTrace(new PrintWriter(text));
                }
                lines.add(text.toString());
            }
        };
        appender.start();
        configuration.addAppender(appender);
        for (LoggerConfig logger : loggers(configuration)) {
            logger.getAppenders().keySet().forEach(logger::removeAppender);
            logger.setLevel(Level.ALL);
        }
        configuration.getRootLogger().addAppender(appender, Level.ALL, null);
        context.updateLoggers();
    }

    private static List<LoggerConfig> loggers(Configuration configuration) {
        Map<String, LoggerConfig> named = configuration.getLoggers();
        List<LoggerConfig> all = new java.util.ArrayList<>(named.values());
        if (!all.contains(configuration.getRootLogger())) {
            all.add(configuration.getRootLogger());
        }
        return all;
    }

    @Override
    public void close() {
        context.reconfigure();
    }
}
