package io.ttlstreams.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The machine, versions, source commit and mode a run was made with; written beside every result, because figures
 * from a shared 2-core machine mean little without them. The load average at the start tells how busy the machine
 * already was.
 */
record Environment(
        int cores,
        long maxHeapMb,
        String os,
        String jvm,
        String kafkaVersion,
        String ttlStreamsVersion,
        String commit,
        double loadAverageAtStart,
        String mode) {

    static Environment current(boolean quick) {
        Runtime runtime = Runtime.getRuntime();
        return new Environment(
                runtime.availableProcessors(),
                runtime.maxMemory() / (1024 * 1024),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                property("/kafka/kafka-version.properties", "version"),
                property("/bench-version.properties", "ttl-streams.version"),
                commit(Path.of(System.getProperty("ttlstreams.home", "."))),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                quick ? "quick" : "full");
    }

    /** As ordered columns, for CSV rows and the JSON header. */
    Map<String, Object> asMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("cores", cores);
        map.put("max_heap_mb", maxHeapMb);
        map.put("os", os);
        map.put("jvm", jvm);
        map.put("kafka_version", kafkaVersion);
        map.put("ttl_streams_version", ttlStreamsVersion);
        map.put("commit", commit);
        map.put("load_average_at_start", loadAverageAtStart);
        map.put("mode", mode);
        return map;
    }

    /** A property of a classpath resource (Kafka's own version file, or the one Maven filters for this module). */
    private static String property(String resource, String key) {
        try (InputStream in = Environment.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty(key, "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The checkout's commit, with "+changes" when tracked files outside {@code bench/results} (the benchmarks' own
     * output) differ from it, or "unknown" outside a git checkout: which code a figure measured.
     */
    private static String commit(Path checkout) {
        String head = git(checkout, "rev-parse", "--short=12", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        String changes = git(checkout, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results");
        return changes.isEmpty() ? head : head + "+changes";
    }

    /** The trimmed output of a git command, or "" when it fails. */
    private static String git(Path checkout, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", checkout.toString()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 ? output : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
