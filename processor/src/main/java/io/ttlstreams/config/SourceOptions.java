package io.ttlstreams.config;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.rules.ConfigValues;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The options of the source topics: which change-event topics are read, how a topic's namespace is found, and how far
 * a change event's own times may stray from its record's timestamp before it is dead-lettered as implausible.
 */
public final class SourceOptions {

    private static final String GROUP = "Source topics";

    public static final String SOURCE_PROFILE_CONFIG = "ttl.source.profile";
    public static final String SOURCE_PROFILE_DOC = "The service behind the MongoDB API: mongodb, cosmosdb (Azure"
            + " Cosmos DB for MongoDB, RU), documentdb (Amazon DocumentDB), firestore (Firestore with MongoDB"
            + " compatibility) or azure-documentdb (Azure DocumentDB, vCore). It shapes the connector configurations"
            + " connect-config renders (pipeline stages, one connector per database or per collection, heartbeats),"
            + " picks the default ttl.confirm.mode (read-back on cosmosdb, whose change streams report no deletes),"
            + " and refuses at start-up a rule or option the service cannot serve. docs/compatible-services.md says"
            + " what each supports; only mongodb was ever run against.";
    public static final String SOURCE_PROFILE_DEFAULT = "mongodb";

    public static final String SOURCE_TOPICS_CONFIG = "ttl.source.topics";
    public static final String SOURCE_TOPICS_DOC = "Change-event topics to read. Empty: derived from the rules'"
            + " namespaces as the MongoDB source connector names topics, <topic.prefix>.<db>.<coll> or <db>.<coll>"
            + " (a db.* rule then needs the topics listed here).";

    public static final String SOURCE_TOPIC_PREFIX_CONFIG = "ttl.source.topic.prefix";
    public static final String SOURCE_TOPIC_PREFIX_DOC =
            "The source connector's topic.prefix; empty when it has" + " none.";

    public static final String SOURCE_TOPIC_NAMESPACE_MAP_CONFIG = "ttl.source.topic.namespace.map";
    public static final String SOURCE_TOPIC_NAMESPACE_MAP_DOC = "Entries topic=db.coll for topics whose name does not"
            + " follow the connector's convention; used to find a topic's namespace, to check the ns its events"
            + " name, and to derive source topics.";

    public static final String EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG = "ttl.event.time.max.future.skew.ms";
    public static final String EVENT_TIME_MAX_FUTURE_SKEW_MS_DOC = "How far, in milliseconds, a change event's"
            + " wallTime or clusterTime may lie after its record's timestamp (capped at the processor's clock) before"
            + " the event is dead-lettered as implausible: the clock skew between MongoDB and the source connector's"
            + " worker, plus the second a clusterTime rounds to. Where ttl.mongodb.uri is set, the processor measures"
            + " MongoDB's clock and widens this by as much as that clock runs ahead of its own. At most a day.";
    public static final long EVENT_TIME_MAX_FUTURE_SKEW_MS_DEFAULT = 30_000L;

    public static final String EVENT_TIME_MAX_LAG_MS_CONFIG = "ttl.event.time.max.lag.ms";
    public static final String EVENT_TIME_MAX_LAG_MS_DOC = "How far back, in milliseconds, a source may resume: the"
            + " source topics keep at least this much (their planned retention), and a change event whose wallTime or"
            + " clusterTime lies further before its record's timestamp is logged, once per topic, as a source resuming"
            + " far back. Such events are applied, not dead-lettered: every deadline counts from no earlier than the"
            + " record's time.";
    public static final long EVENT_TIME_MAX_LAG_MS_DEFAULT = 7L * 24 * 60 * 60 * 1000;

    private SourceOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        SOURCE_PROFILE_CONFIG,
                        Type.STRING,
                        SOURCE_PROFILE_DEFAULT,
                        ConfigDef.ValidString.in(
                                ConfigValues.spellings(SourceProfile.class).toArray(String[]::new)),
                        Importance.HIGH,
                        SOURCE_PROFILE_DOC)
                .define(
                        SOURCE_TOPICS_CONFIG,
                        Type.LIST,
                        List.of(),
                        Validators.topics(),
                        Importance.HIGH,
                        SOURCE_TOPICS_DOC)
                .define(
                        SOURCE_TOPIC_PREFIX_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        SOURCE_TOPIC_PREFIX_DOC)
                .define(
                        SOURCE_TOPIC_NAMESPACE_MAP_CONFIG,
                        Type.LIST,
                        List.of(),
                        Validators.of("topic=db.coll entries", value -> parseNamespaceMap((List<?>) value)),
                        Importance.MEDIUM,
                        SOURCE_TOPIC_NAMESPACE_MAP_DOC)
                .define(
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG,
                        Type.LONG,
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_DEFAULT,
                        Range.between(0, Duration.ofDays(1).toMillis()),
                        Importance.LOW,
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_DOC)
                .define(
                        EVENT_TIME_MAX_LAG_MS_CONFIG,
                        Type.LONG,
                        EVENT_TIME_MAX_LAG_MS_DEFAULT,
                        Range.atLeast(Duration.ofMinutes(1).toMillis()),
                        Importance.LOW,
                        EVENT_TIME_MAX_LAG_MS_DOC);
    }

    /**
     * Parses {@code topic=db.coll} entries.
     *
     * @throws IllegalArgumentException describing the first bad entry
     */
    static Map<String, Namespace> parseNamespaceMap(List<?> entries) {
        Map<String, Namespace> map = new LinkedHashMap<>();
        for (Object entry : entries) {
            String text = entry.toString();
            int equals = text.indexOf('=');
            if (equals < 0) {
                throw new IllegalArgumentException("Entry '" + text + "' is not topic=db.coll");
            }
            String topic = text.substring(0, equals).trim();
            Validators.checkTopic(topic);
            NamespacePattern pattern =
                    NamespacePattern.parse(text.substring(equals + 1).trim());
            Namespace namespace = pattern.exactNamespace()
                    .orElseThrow(() -> new IllegalArgumentException("Entry '" + text + "' maps to a database"
                            + " wildcard; a topic carries one collection, db.coll"));
            if (map.put(topic, namespace) != null) {
                throw new IllegalArgumentException("Topic '" + topic + "' is mapped twice");
            }
        }
        return map;
    }

    /**
     * The topics to read: {@code explicit} when given, otherwise those {@code mapping} names for the rules'
     * namespaces.
     *
     * @throws ConfigException naming {@value #SOURCE_TOPICS_CONFIG} when a topic cannot be derived
     */
    static List<String> sourceTopics(List<String> explicit, TtlRules rules, TopicNamespaceMapping mapping) {
        if (!explicit.isEmpty()) {
            return List.copyOf(explicit);
        }
        Set<String> topics = new LinkedHashSet<>();
        for (TtlRule rule : rules.rules()) {
            if (rule.namespace().collection() == null) {
                throw new ConfigException(
                        SOURCE_TOPICS_CONFIG,
                        explicit,
                        "Rule " + rule.name() + " covers every" + " collection of " + rule.namespace()
                                + ", so its topics cannot be derived: list them here");
            }
            for (String topic :
                    mapping.topicsOf(rule.namespace().exactNamespace().orElseThrow())) {
                try {
                    Validators.checkTopic(topic);
                } catch (IllegalArgumentException illegal) {
                    throw new ConfigException(
                            SOURCE_TOPICS_CONFIG,
                            explicit,
                            "The topic derived for rule "
                                    + rule.name() + " is illegal: " + illegal.getMessage()
                                    + "; list the topics here or map"
                                    + " them with " + SOURCE_TOPIC_NAMESPACE_MAP_CONFIG);
                }
                topics.add(topic);
            }
        }
        return List.copyOf(topics);
    }
}
