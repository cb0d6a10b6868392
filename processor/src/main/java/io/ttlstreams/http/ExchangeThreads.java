package io.ttlstreams.http;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK HTTP server's executor: a bounded pool on which each connection's request is read and answered, and a
 * deadline by which the request's line and headers must have arrived.
 *
 * <p>The JDK server hands a connection to its executor once its first bytes arrive, and the executor's thread then
 * reads the rest of the request head with blocking reads: a client that sends half a request holds a thread. The
 * server's own limit ({@code sun.net.httpserver.maxReqTime}) is one system property for the whole JVM, read once,
 * in whole seconds. Here each exchange gets its own deadline instead: when it passes before the handler was reached
 * ({@link #headRead()}), the thread is interrupted, which closes the connection's (interruptible) channel and ends
 * the exchange. The lock in {@link Deadline} makes sure only that phase is ever interrupted, never the handler nor a
 * later exchange on the same thread.
 *
 * <p>When every thread is busy and the queue full, the server closes the new connection ({@link
 * RejectedExecutionException}) rather than queueing without bound.
 */
public final class ExchangeThreads implements Executor, AutoCloseable {

    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService timer;
    private final long timeoutMillis;
    private final ThreadLocal<Deadline> current = new ThreadLocal<>();

    /**
     * @param threads the most exchanges read or answered at once
     * @param queue the most connections waiting for a thread
     * @param requestTimeout how long a client may take to send a request's line and headers
     */
    ExchangeThreads(int threads, int queue, Duration requestTimeout) {
        this.pool = new ThreadPoolExecutor(
                threads,
                threads,
                1,
                TimeUnit.MINUTES,
                new ArrayBlockingQueue<>(queue),
                daemon("ttl-streams-http"),
                new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1, daemon("ttl-streams-http-timeout"));
        deadlines.setRemoveOnCancelPolicy(true);
        this.timer = deadlines;
        this.timeoutMillis = requestTimeout.toMillis();
    }

    @Override
    public void execute(Runnable exchange) {
        pool.execute(() -> run(exchange));
    }

    private void run(Runnable exchange) {
        Deadline deadline = new Deadline(Thread.currentThread());
        current.set(deadline);
        ScheduledFuture<?> alarm = timer.schedule(deadline::expire, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            exchange.run();
        } finally {
            alarm.cancel(false);
            deadline.finish();
            current.remove();
        }
    }

    /**
     * Called by the handler when it starts: the request head was read in time, and the deadline no longer applies.
     *
     * @return false when the deadline passed first: the connection is closing, and the exchange is not to be answered
     */
    boolean headRead() {
        Deadline deadline = current.get();
        return deadline == null || deadline.handle();
    }

    @Override
    public void close() {
        pool.shutdownNow();
        timer.shutdownNow();
    }

    /** Daemon threads named {@code name-1}, {@code name-2}, ...: none of them keeps the JVM up. */
    public static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = Executors.defaultThreadFactory();
        return runnable -> {
            Thread thread = threads.newThread(runnable);
            thread.setName(name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One exchange's deadline for its request head. */
    private static final class Deadline {

        private final Thread thread;
        private boolean reading = true;

        Deadline(Thread thread) {
            this.thread = thread;
        }

        synchronized boolean handle() {
            boolean inTime = reading;
            reading = false;
            return inTime;
        }

        synchronized void expire() {
            if (reading) {
                reading = false;
                thread.interrupt();
            }
        }

        /** Clears an interrupt that came too late to close anything, before the thread takes other work. */
        synchronized void finish() {
            reading = false;
            Thread.interrupted();
        }
    }
}
