package io.ttlstreams.config;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Maps a source topic to the MongoDB namespace ("db.coll") its change events come from, for events that carry no
 * {@code ns} field.
 *
 * <p>Minimal version written alongside the event package so that it compiles; the config package owns the real one
 * and replaces this file at merge.
 */
public final class TopicNamespaceMapping {

    private final Map<String, String> explicit;
    private final String topicPrefix;

    /**
     * @param explicit    topic to namespace entries that win over the prefix rule
     * @param topicPrefix the source connector's {@code topic.prefix}; empty or null when it has none
     */
    public TopicNamespaceMapping(Map<String, String> explicit, String topicPrefix) {
        this.explicit = Map.copyOf(Objects.requireNonNull(explicit, "explicit"));
        this.topicPrefix = topicPrefix == null ? "" : topicPrefix;
    }

    /**
     * The namespace of a topic: its explicit entry, else the topic without "{@code <prefix>.}" when the topic starts
     * with it, else the topic name itself (the connector names topics {@code [prefix.]db.coll}).
     */
    public Optional<String> namespaceOf(String topic) {
        String mapped = explicit.get(topic);
        if (mapped != null) {
            return Optional.of(mapped);
        }
        String prefixWithDot = topicPrefix + ".";
        if (!topicPrefix.isEmpty() && topic.startsWith(prefixWithDot)) {
            return Optional.of(topic.substring(prefixWithDot.length()));
        }
        return Optional.of(topic);
    }
}
