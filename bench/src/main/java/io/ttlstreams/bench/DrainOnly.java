package io.ttlstreams.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Figure 7's mass expiry alone, for bisecting, profiling and comparing settings without the other figures: {@code java
 * -Xmx4g -cp 'bench/target/ttl-streams-bench.jar:bench/target/lib/*' io.ttlstreams.bench.DrainOnly 200000 [R
 * [KEY=VALUE[,KEY=VALUE...]]...]}. With only N it runs the defaults once; with R and configurations it runs the
 * defaults and each configuration R rounds, rotated each round (AB, BA, ...), so that variants compare within one run
 * on a shared machine. It prints one line per drain: its drain time, CPU per command and the wall-clock span of the
 * drain (epoch milliseconds, to cut a profile of the same run to it), nothing else.
 */
public final class DrainOnly {

    private DrainOnly() {}

    /**
     * @param args the number of documents falling due within one second; optionally the rounds and the
     *     configurations to compare with the defaults
     */
    public static void main(String[] args) throws InterruptedException {
        int documents = Integer.parseInt(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        List<MassExpiryBench.Case> variants = new ArrayList<>();
        variants.add(MassExpiryBench.Case.of(Map.of(), documents));
        for (int i = 2; i < args.length; i++) {
            Map<String, String> settings = BenchCommand.settings(args[i]);
            BenchSupport.config(settings); // bad keys and values fail here, named
            variants.add(MassExpiryBench.Case.of(settings, documents));
        }
        List<MassExpiryBench.Case> cases = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            cases.addAll(BrokerBench.rotated(variants, round - 1));
        }
        try (BenchBroker kafka = BenchBroker.start()) {
            MassExpiryBench bench = new MassExpiryBench(kafka, cases, System.out::println);
            bench.run();
            for (MassExpiryBench.Result result : bench.results) {
                System.out.printf(
                        Locale.ROOT,
                        "case=\"%s\" drain_s=%.3f stream_cpu_us_per_command=%.1f jvm_cpu_us_per_command=%.1f"
                                + " punctuations=%d max_per_punctuation=%d early=%d missing=%d"
                                + " first_deadline_ms=%d last_deadline_ms=%d last_command_ms=%d%n",
                        result.drain().name(),
                        result.drainSeconds(),
                        result.streamCpuMicrosPerCommand(),
                        result.processCpuMicrosPerCommand(),
                        result.punctuations(),
                        result.maxPerPunctuation(),
                        result.early(),
                        result.missing(),
                        result.firstDeadlineMs(),
                        result.lastDeadlineMs(),
                        result.lastArrivalMs());
            }
        }
        // Kafka's and RocksDB's non-daemon threads would keep the JVM up.
        System.exit(0);
    }
}
