package io.ttlstreams.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The machine, versions and mode a run was made with; written beside every result, because figures from a
 * shared 2-core machine mean little without them.
 */
record Environment(
        int cores, long maxHeapMb, String os, String jvm, String kafkaVersion, String ttlStreamsVersion, String mode) {

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
}
