package io.ttlstreams.bench;

import java.util.Locale;

/**
 * The embedded pipeline under sustained load: {@code rate} inserts a second for {@code minutes} minutes, each due
 * {@code leadMs} after its insert, through the whole stack ({@link EndToEndLagBench}: stand-in, the production
 * connectors, broker, processor). Prints deadline → delete-event lag p50/p99 of the documents due in the first and
 * in the last minute, the worst, and how many were deleted early or never. Exit code 1 when any was early or
 * missed. Run it with the JIT settings of the development stack ({@code -XX:TieredStopAtLevel=1}, as the launcher
 * starts {@code run} and {@code demo}), so that its figures are those of the stack a user starts.
 *
 * <pre>
 *   java -Xmx2g -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile=log4j2-dev.xml \
 *       -cp "bench/target/ttl-streams-bench.jar:bench/target/lib/*" io.ttlstreams.bench.SoakBench 1000 10 5000
 * </pre>
 *
 * Arguments: rate per second (default 1000), minutes (default 10), lead in ms (default 5000).
 */
public final class SoakBench {

    private SoakBench() {}

    public static void main(String[] args) throws InterruptedException {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int minutes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long leadMs = args.length > 2 ? Long.parseLong(args[2]) : 5000;
        EndToEndLagBench bench = new EndToEndLagBench(rate, minutes * 60, leadMs, System.out::println);
        bench.run();
        long firstFrom = leadMs;
        long lastTo = minutes * 60_000L + leadMs;
        System.out.printf(
                Locale.ROOT,
                "soak: rate=%d/s minutes=%d lead_ms=%d inserted=%d early=%d missed=%d%n"
                        + "first minute: p50_ms=%.0f p99_ms=%.0f%n"
                        + "last minute:  p50_ms=%.0f p99_ms=%.0f%n"
                        + "all: p50_ms=%.0f p99_ms=%.0f max_ms=%.0f%n",
                rate,
                minutes,
                leadMs,
                bench.inserted,
                bench.early,
                bench.missing,
                bench.p(50, firstFrom, firstFrom + 60_000),
                bench.p(99, firstFrom, firstFrom + 60_000),
                bench.p(50, lastTo - 60_000, lastTo),
                bench.p(99, lastTo - 60_000, lastTo),
                bench.p(50),
                bench.p(99),
                bench.max());
        System.exit(bench.early == 0 && bench.missing == 0 ? 0 : 1);
    }
}
