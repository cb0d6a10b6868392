package io.ttlstreams.config;

import io.ttlstreams.contract.Namespace;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which MongoDB namespace ("db.coll") a source topic carries, for change events that do not say so themselves
 * (the MongoDB stand-in omits {@code ns}), and which topics carry a namespace.
 *
 * <p>The MongoDB source connector names topics {@code <topic.prefix>.<db>.<coll>}, or {@code <db>.<coll>} without a
 * prefix; explicit entries cover topics named otherwise (say, by the connector's {@code topic.namespace.map}).
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class TopicNamespaceMapping {

    private final Map<String, Namespace> explicit;
    private final String topicPrefix;

    /**
     * @param explicit    topic to namespace entries, which win over the naming convention
     * @param topicPrefix the source connector's {@code topic.prefix}; empty or {@code null} when it has none
     */
    public TopicNamespaceMapping(Map<String, Namespace> explicit, String topicPrefix) {
        this.explicit = new LinkedHashMap<>(Objects.requireNonNull(explicit, "explicit"));
        this.topicPrefix = topicPrefix == null ? "" : topicPrefix;
    }

    /**
     * The collection {@code topic} carries: its explicit entry, else the topic name without {@code <prefix>.} (or
     * the topic name itself) read as {@code db.coll}; empty when that is no valid namespace.
     */
    public Optional<Namespace> namespaceOf(String topic) {
        Namespace mapped = explicit.get(topic);
        if (mapped != null) {
            return Optional.of(mapped);
        }
        String prefixWithDot = topicPrefix + ".";
        boolean prefixed = !topicPrefix.isEmpty() && topic.startsWith(prefixWithDot);
        try {
            return Optional.of(Namespace.parse(prefixed ? topic.substring(prefixWithDot.length()) : topic));
        } catch (IllegalArgumentException notANamespace) {
            return Optional.empty();
        }
    }

    /**
     * The topics carrying {@code namespace}: the explicit entries mapped to it, else the name the connector's
     * convention gives it. The inverse of {@link #namespaceOf}, used to derive the source topics from the rules.
     */
    List<String> topicsOf(Namespace namespace) {
        List<String> topics = explicit.entrySet().stream()
                .filter(entry -> entry.getValue().equals(namespace))
                .map(Map.Entry::getKey)
                .toList();
        return !topics.isEmpty()
                ? topics
                : List.of(topicPrefix.isEmpty() ? namespace.toString() : topicPrefix + "." + namespace);
    }
}
