package io.ttlstreams.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Figure 7's defaults case alone, for bisecting and profiling the mass drain without the other figures: {@code java
 * -Xmx4g -cp 'bench/target/ttl-streams-bench.jar:bench/target/lib/*' io.ttlstreams.bench.DrainOnly 200000}. It prints
 * the drain time and the CPU per command, nothing else.
 */
public final class DrainOnly {

    private DrainOnly() {}

    /** @param args the number of documents falling due within one second */
    public static void main(String[] args) throws InterruptedException {
        int documents = Integer.parseInt(args[0]);
        try (BenchBroker kafka = BenchBroker.start()) {
            MassExpiryBench bench = new MassExpiryBench(
                    kafka, List.of(new MassExpiryBench.Case("defaults", Map.of(), documents)), System.out::println);
            bench.run();
            MassExpiryBench.Result result = bench.results.get(0);
            System.out.printf(
                    Locale.ROOT,
                    "drain_s=%.3f stream_cpu_us_per_command=%.1f jvm_cpu_us_per_command=%.1f early=%d missing=%d%n",
                    result.drainSeconds(),
                    result.streamCpuMicrosPerCommand(),
                    result.processCpuMicrosPerCommand(),
                    result.early(),
                    result.missing());
        }
        // Kafka's and RocksDB's non-daemon threads would keep the JVM up.
        System.exit(0);
    }
}
