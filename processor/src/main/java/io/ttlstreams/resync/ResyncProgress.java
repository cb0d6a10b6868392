package io.ttlstreams.resync;

import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import java.io.PrintWriter;
import java.time.Clock;

/**
 * Shows how far a resync got: on a terminal a bar redrawn in place ({@code \r}), otherwise (a log file, a pipe) a
 * line when a namespace starts, every few seconds, and when it is done.
 */
public interface ResyncProgress {

    /** Reading {@code target} starts; {@code estimated} is MongoDB's estimate of its documents. */
    void started(ResyncTarget target, long estimated);

    /** {@code read} documents of the current namespace are read so far. */
    void read(long read);

    /** The current namespace is read: {@code read} documents. */
    void finished(long read);

    /** Shows nothing (the periodic sweep logs its summary instead). */
    static ResyncProgress none() {
        return new ResyncProgress() {
            @Override
            public void started(ResyncTarget target, long estimated) {}

            @Override
            public void read(long read) {}

            @Override
            public void finished(long read) {}
        };
    }

    /**
     * Progress on {@code out}.
     *
     * @param terminal whether {@code out} is a terminal, where a bar can be redrawn in place
     */
    static ResyncProgress console(PrintWriter out, boolean terminal, Clock clock) {
        return new ConsoleProgress(out, terminal, clock);
    }
}
