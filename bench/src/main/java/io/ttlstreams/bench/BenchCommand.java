package io.ttlstreams.bench;

import io.ttlstreams.app.CommandExtension;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ttl-streams bench}: the benchmarks of module {@code bench}, added to the command line by the launcher. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Run the benchmarks: punctuation cost, expiry lag, throughput on the embedded broker, state size.",
            "Prints a table and writes CSV, JSON and PNG plots; the last line sums up the key figures."
        })
public final class BenchCommand implements CommandExtension {

    @Option(names = "--quick", description = "A short run (under a minute) with smaller sizes.")
    private boolean quick;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "${sys:ttlstreams.home:-.}/bench/results",
            description = "Where results go (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Option(
            names = "--sizes",
            paramLabel = "N",
            split = ",",
            description = "Schedule sizes of the punctuation benchmark (default: 10000,100000 with --quick,"
                    + " else 10000,100000,1000000).")
    private List<Integer> sizes;

    @Override
    public Integer call() {
        System.setProperty("java.awt.headless", "true");
        int[] schedules = sizes == null
                ? (quick ? new int[] {10_000, 100_000} : new int[] {10_000, 100_000, 1_000_000})
                : sizes.stream().mapToInt(Integer::intValue).sorted().toArray();
        if (Arrays.stream(schedules).anyMatch(size -> size < 1)) {
            System.err.println("ttl-streams bench: --sizes must be positive");
            return 2;
        }
        new BenchMain(quick, out, schedules).run();
        return 0;
    }
}
