package io.ttlstreams.embedded.app;

import io.ttlstreams.contract.Namespace;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Processor settings for the pipeline ITs whose rules change between runs. */
final class RuleSettings {

    private RuleSettings() {}

    /**
     * Field rules on expireAt, one per namespace of {@code ruled}, each named after its collection; the topics of
     * {@code watched} read whatever the rules; one partition, as a barrier (a later marker that must be handled
     * first) proves nothing across partitions. The map is mutable, for a test's own additions.
     */
    static Map<String, String> expireAtRules(List<Namespace> ruled, List<Namespace> watched) {
        Map<String, String> settings = new HashMap<>();
        settings.put("ttl.rules", ruled.stream().map(Namespace::collection).collect(Collectors.joining(",")));
        for (Namespace namespace : ruled) {
            settings.put("ttl.rule." + namespace.collection() + ".namespace", namespace.toString());
            settings.put("ttl.rule." + namespace.collection() + ".field", "expireAt");
        }
        settings.put(
                "ttl.source.topics", watched.stream().map(Namespace::toString).collect(Collectors.joining(",")));
        settings.put("embedded.partitions", "1");
        return settings;
    }
}
