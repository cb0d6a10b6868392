package io.ttlstreams.app;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and Ctrl-C (SIGINT) as {@code run} handles them: the first asks the command's own thread to stop, which
 * closes what has started and returns exit code 0, as {@code run --help} promises; the JVM's default would run the
 * shutdown hooks and exit with 143 or 130, and could not stop a start-up half-way. A second signal ends the process at
 * once, for a stop that hangs.
 *
 * <p>During start-up the command's thread is interrupted, so that a wait (for a broker, for Connect, for the embedded
 * stack) ends early and what was started is closed, temporary data directory included.
 */
final class StopSignals implements AutoCloseable {

    /** Exit code of the second signal: the shell's for an interrupted command. */
    static final int EXIT_FORCED = 130;

    private static final List<String> SIGNALS = List.of("TERM", "INT");

    private final PrintStream out;
    private final Thread commandThread;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
    private volatile boolean requested;
    private volatile boolean starting = true;

    private StopSignals(PrintStream out, Thread commandThread) {
        this.out = out;
        this.commandThread = commandThread;
    }

    /** Handles SIGTERM and SIGINT for the calling thread's command until {@link #close()}. */
    static StopSignals install(PrintStream out) {
        StopSignals signals = new StopSignals(out, Thread.currentThread());
        for (String name : SIGNALS) {
            Signal signal = new Signal(name);
            signals.previous.put(signal, Signal.handle(signal, signals::onSignal));
        }
        return signals;
    }

    private void onSignal(Signal signal) {
        if (requested) {
            out.println("ttl-streams: SIG" + signal.getName() + " again, exiting at once");
            Runtime.getRuntime().halt(EXIT_FORCED);
        }
        requested = true;
        out.println("ttl-streams: stopping...");
        stop.countDown();
        if (starting) {
            commandThread.interrupt();
        }
    }

    /** Whether a signal asked to stop. */
    boolean requested() {
        return requested;
    }

    /** Start-up is over: from now on a signal only releases {@link #awaitStop()}. */
    void started() {
        starting = false;
    }

    /** Releases {@link #awaitStop()} without a signal, e.g. when the processor failed for good. */
    void release() {
        stop.countDown();
    }

    /**
     * Waits for a signal or {@link #release()}, then clears the thread's interrupt status, which a signal at the end of
     * start-up may have set, so that closing what runs is not cut short.
     */
    void awaitStop() {
        while (stop.getCount() > 0) {
            try {
                stop.await();
            } catch (InterruptedException e) {
                // A signal arriving as start-up ended; the latch is released too.
            }
        }
        Thread.interrupted();
    }

    /** Restores the handlers found before {@link #install}. */
    @Override
    public void close() {
        previous.forEach(Signal::handle);
    }
}
