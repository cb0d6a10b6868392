package io.ttlstreams.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes a connection whose request head has not arrived whole within {@code ttl.http.request.timeout.ms} of its
 * opening. Jetty's idle timeout bounds silence only: a head sent a byte at a time, each before the idle timeout, would
 * hold its connection until the head's size limit, hours at the default. The server keeps no connection open after its
 * answer (persistent connections off), so a connection reads one head, and this one deadline bounds every head.
 *
 * <p>Jetty counts a request in once its head is complete ({@link Connection#getMessagesIn()}): a connection that counts
 * none at its deadline is still reading its head, or sent nothing.
 */
final class HeadDeadline implements Connection.Listener {

    private final Scheduler scheduler;
    private final long millis;

    HeadDeadline(Scheduler scheduler, Duration deadline) {
        this.scheduler = scheduler;
        this.millis = deadline.toMillis();
    }

    @Override
    public void onOpened(Connection connection) {
        scheduler.schedule(
                () -> {
                    if (connection.getMessagesIn() == 0) {
                        connection.getEndPoint().close();
                    }
                },
                millis,
                TimeUnit.MILLISECONDS);
    }
}
