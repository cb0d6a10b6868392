package io.ttlstreams.resync;

import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import java.io.PrintWriter;
import java.io.Writer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * Shows how far a resync got: on a terminal a bar redrawn in place ({@code \r}), otherwise (a log file, a pipe) a
 * line when a namespace starts, every few seconds, and when it is done.
 */
public final class ResyncProgress {

    /** A terminal bar is redrawn at most this often. */
    private static final Duration REDRAW = Duration.ofMillis(200);
    /** Elsewhere a line is written at most this often. */
    private static final Duration LINE = Duration.ofSeconds(5);

    private static final int BAR_WIDTH = 30;

    private final PrintWriter out;
    private final boolean terminal;
    private final Clock clock;
    private ResyncTarget target;
    private long estimated;
    private Instant start;
    private Instant shown;

    private ResyncProgress(PrintWriter out, boolean terminal, Clock clock) {
        this.out = out;
        this.terminal = terminal;
        this.clock = clock;
    }

    /**
     * Progress on {@code out}.
     *
     * @param terminal whether {@code out} is a terminal, where a bar can be redrawn in place
     */
    public static ResyncProgress console(PrintWriter out, boolean terminal, Clock clock) {
        return new ResyncProgress(out, terminal, clock);
    }

    /** Shows nothing (the periodic sweep logs its summary instead). */
    public static ResyncProgress none() {
        return new ResyncProgress(new PrintWriter(Writer.nullWriter()), false, Clock.systemUTC());
    }

    /** Reading {@code target} starts; {@code estimated} is MongoDB's estimate of its documents. */
    public void started(ResyncTarget target, long estimated) {
        this.target = target;
        this.estimated = estimated;
        this.start = clock.instant();
        this.shown = start;
        if (terminal) {
            bar(0, false, start);
        } else {
            out.println(target.namespace() + ": reading about " + estimated + " documents, publishing to topic "
                    + target.topic());
        }
        out.flush();
    }

    /** {@code read} documents of the current namespace are read so far. */
    public void read(long read) {
        Instant now = clock.instant();
        if (Duration.between(shown, now).compareTo(terminal ? REDRAW : LINE) < 0) {
            return;
        }
        shown = now;
        if (terminal) {
            bar(read, false, now);
        } else {
            out.println(target.namespace() + ": " + read + "/" + Math.max(read, estimated) + " documents read ("
                    + percent(read, false) + "%), " + rate(read, now) + " documents/s");
        }
        out.flush();
    }

    /** The current namespace is read: {@code read} documents. */
    public void finished(long read) {
        Instant now = clock.instant();
        if (terminal) {
            bar(read, true, now);
            out.println();
        } else {
            out.println(target.namespace() + ": " + read + "/" + read + " documents read (100%) in "
                    + String.format(
                            Locale.ROOT, "%.1f", Duration.between(start, now).toMillis() / 1000.0) + " s");
        }
        out.flush();
    }

    private void bar(long read, boolean done, Instant now) {
        int percent = percent(read, done);
        int filled = percent * BAR_WIDTH / 100;
        out.print("\r" + target.namespace() + " [" + "#".repeat(filled) + "-".repeat(BAR_WIDTH - filled) + "] "
                + String.format(Locale.ROOT, "%3d%%", percent) + " " + read + "/"
                + (done ? read : Math.max(read, estimated))
                + " documents, " + rate(read, now) + "/s   ");
    }

    /** Percent of the estimate, at most 99 until done: the estimate comes from metadata and may fall short. */
    private int percent(long read, boolean done) {
        if (done) {
            return 100;
        }
        return estimated <= 0 ? 0 : (int) Math.min(99, 100 * read / estimated);
    }

    private long rate(long read, Instant now) {
        long millis = Duration.between(start, now).toMillis();
        return millis == 0 ? 0 : read * 1000 / millis;
    }
}
