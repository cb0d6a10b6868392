package io.ttlstreams.config;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The ttl-streams configuration: the TTL rules, the topics, the scheduler's budget, the embedded stack's ports, and
 * the Kafka Streams settings, which are every key outside {@code ttl.} and {@code embedded.}.
 *
 * <p>Everything is validated when the object is built, and each {@link ConfigException} names the offending option:
 * a bad value, a missing required option, an option of the other TTL mode, or an unknown {@code ttl.*} or
 * {@code embedded.*} key (Kafka would ignore it, so that a typo would silently change what gets deleted).
 */
public final class TtlStreamsConfig extends AbstractConfig {

    private static final String RULES_GROUP = "Rules";
    private static final String SOURCE_GROUP = "Source topics";
    private static final String OUTPUT_GROUP = "Output topics";
    private static final String SCHEDULER_GROUP = "Scheduler";
    private static final String CONNECT_GROUP = "Kafka Connect";
    private static final String EMBEDDED_GROUP = "Embedded local stack";
    private static final String OPERATIONS_GROUP = "HTTP and operations";

    public static final String RULES_CONFIG = "ttl.rules";
    public static final String RULES_DOC = "Names of the TTL rules, each configured under ttl.rule.<name>. (see the"
            + " rule options). Names use letters, digits, '-' and '_'.";

    public static final String SOURCE_TOPICS_CONFIG = "ttl.source.topics";
    public static final String SOURCE_TOPICS_DOC = "Change-event topics to read. Empty: derived from the rules'"
            + " namespaces as the MongoDB source connector names topics, <topic.prefix>.<db>.<coll> or <db>.<coll>"
            + " (a db.* rule then needs the topics listed here).";

    public static final String SOURCE_TOPIC_PREFIX_CONFIG = "ttl.source.topic.prefix";
    public static final String SOURCE_TOPIC_PREFIX_DOC =
            "The source connector's topic.prefix; empty when it has" + " none.";

    public static final String SOURCE_TOPIC_NAMESPACE_MAP_CONFIG = "ttl.source.topic.namespace.map";
    public static final String SOURCE_TOPIC_NAMESPACE_MAP_DOC = "Entries topic=db.coll for topics whose name does not"
            + " follow the connector's convention; used to find a topic's namespace and to derive source topics.";

    public static final String DELETE_TOPIC_CONFIG = "ttl.delete.topic";
    public static final String DELETE_TOPIC_DOC =
            "Topic of the delete commands, which the MongoDB sink connector" + " applies.";

    public static final String AUDIT_TOPIC_CONFIG = "ttl.audit.topic";
    public static final String AUDIT_TOPIC_DOC = "Topic of an audit event per expiry; empty disables auditing.";

    public static final String DLQ_TOPIC_CONFIG = "ttl.dlq.topic";
    public static final String DLQ_TOPIC_DOC = "Dead-letter topic for change events that cannot be processed.";

    public static final String CONTROL_TOPIC_CONFIG = "ttl.control.topic";
    public static final String CONTROL_TOPIC_DOC = "Topic that carries namespace-wide events (drop, dropDatabase,"
            + " rename, invalidate) to every task, so that each cancels its share of the namespace. Created at"
            + " start-up with as many partitions as the largest source topic.";

    public static final String PUNCTUATE_INTERVAL_MS_CONFIG = "ttl.punctuate.interval.ms";
    public static final String PUNCTUATE_INTERVAL_MS_DOC = "How often, in milliseconds of wall-clock time, each task"
            + " looks for due documents; the main contributor to deletion latency.";

    public static final String PUNCTUATE_MAX_ENTRIES_CONFIG = "ttl.punctuate.max.entries";
    public static final String PUNCTUATE_MAX_ENTRIES_DOC = "At most this many delete commands per punctuation, so"
            + " that a backlog does not stall the task's other work.";

    public static final String PUNCTUATE_MAX_DURATION_MS_CONFIG = "ttl.punctuate.max.duration.ms";
    public static final String PUNCTUATE_MAX_DURATION_MS_DOC =
            "Time budget of one punctuation in milliseconds; the" + " rest of a backlog waits for the next one.";

    public static final String MAX_DELETES_PER_SECOND_CONFIG = "ttl.max.deletes.per.second";
    public static final String MAX_DELETES_PER_SECOND_DOC = "Throttle per task: at most this many delete commands per"
            + " second, to spare the database when a mass expiry comes due. Unset: unthrottled.";

    public static final String CONNECT_URL_CONFIG = "ttl.connect.url";
    public static final String CONNECT_URL_DOC =
            "REST URL of the Kafka Connect cluster whose connectors ttl-streams" + " manages; empty for none.";

    public static final String EMBEDDED_MONGODB_PORT_CONFIG = "embedded.mongodb.port";
    public static final String EMBEDDED_MONGODB_PORT_DOC =
            "Embedded stack: port of the MongoDB stand-in; 0 picks a" + " free port.";

    public static final String EMBEDDED_KAFKA_PORT_CONFIG = "embedded.kafka.port";
    public static final String EMBEDDED_KAFKA_PORT_DOC =
            "Embedded stack: port of the Kafka broker; 0 picks a free" + " port.";

    public static final String EMBEDDED_CONNECT_PORT_CONFIG = "embedded.connect.port";
    public static final String EMBEDDED_CONNECT_PORT_DOC =
            "Embedded stack: port of the Kafka Connect REST API; 0" + " picks a free port.";

    public static final String EMBEDDED_DATA_DIR_CONFIG = "embedded.data.dir";
    public static final String EMBEDDED_DATA_DIR_DOC = "Embedded stack: directory for the broker's and Connect's data;"
            + " empty for a fresh temporary directory.";

    public static final String HTTP_PORT_CONFIG = "ttl.http.port";
    public static final String HTTP_PORT_DOC = "Port of the HTTP server: health checks, Prometheus metrics, schedule"
            + " queries and the status page; 0 picks a free port. The embedded stack uses a free port unless this is"
            + " set.";
    /** The HTTP port unless the configuration sets one; the Dockerfile, compose file and manifests expose it. */
    public static final int DEFAULT_HTTP_PORT = 8080;

    public static final String HTTP_BIND_ADDRESS_CONFIG = "ttl.http.bind.address";
    public static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP server listens on; 0.0.0.0 for every"
            + " interface. The embedded stack uses 127.0.0.1 unless this is set. Other instances reach this one at"
            + " Kafka Streams' application.server, which defaults to this address (this host's address for 0.0.0.0)"
            + " and the HTTP port.";

    public static final String HEALTH_INTERVAL_MS_CONFIG = "ttl.health.interval.ms";
    public static final String HEALTH_INTERVAL_MS_DOC = "How often, in milliseconds, the status of the managed"
            + " Kafka Connect connectors and the freshness of the source topics are checked, for readiness and"
            + " metrics.";

    public static final String LOG_FORMAT_CONFIG = "ttl.log.format";
    public static final String LOG_FORMAT_DOC = "text: one line per log event; json: one JSON object per line"
            + " (Elastic Common Schema, log4j's JSON Template Layout) for log shippers. Applied by run when the"
            + " configuration is read, before anything is logged.";
    /** The values of {@value #LOG_FORMAT_CONFIG}. */
    public static final List<String> LOG_FORMATS = List.of("text", "json");

    /** Kafka Streams' {@code application.id} unless the configuration sets one. */
    public static final String DEFAULT_APPLICATION_ID = "ttl-streams";

    /** Letters, digits, '-' and '_': a rule name becomes one dot-free segment of its option keys. */
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private static final ConfigDef BASE = baseDefinition();

    private final TtlRules rules;
    private final TopicNamespaceMapping topicNamespaceMapping;
    private final List<String> sourceTopics;

    /**
     * @param props the whole configuration: ttl-streams options and Kafka Streams settings
     * @throws ConfigException naming the option on any bad value, missing required option or unknown ttl-streams
     *                         key
     */
    public TtlStreamsConfig(Map<?, ?> props) {
        super(definition(props), props);
        this.rules = new TtlRules(getList(RULES_CONFIG).stream()
                .map(name -> RuleConfig.toRule(name, this))
                .toList());
        this.topicNamespaceMapping = new TopicNamespaceMapping(
                parseNamespaceMap(getList(SOURCE_TOPIC_NAMESPACE_MAP_CONFIG)), getString(SOURCE_TOPIC_PREFIX_CONFIG));
        this.sourceTopics = deriveSourceTopics();
    }

    /**
     * Reads a Java properties file (UTF-8). Trailing comments such as {@code key=value   # note} are removed when
     * the {@code #} follows whitespace outside a double-quoted JSON string; write {@code \#} to keep one.
     *
     * @throws ConfigException naming the file when it cannot be read, or an option as the constructor does
     */
    public static TtlStreamsConfig load(Path propertiesFile) {
        return new TtlStreamsConfig(PropertiesFiles.read(propertiesFile));
    }

    /**
     * Reads a properties file as {@link #load(Path)} does, then applies the environment's options and the command
     * line's, as {@link ConfigLayers} describes.
     *
     * @param environment the process environment, usually {@link System#getenv()}
     * @param overrides {@code key=value} assignments from the command line
     * @throws ConfigException naming the file, variable, assignment or option that is wrong
     */
    public static TtlStreamsConfig load(Path propertiesFile, Map<String, String> environment, List<String> overrides) {
        return new TtlStreamsConfig(ConfigLayers.merge(PropertiesFiles.read(propertiesFile), environment, overrides));
    }

    /**
     * This configuration with the environment's options and the command line's applied over it, as {@link
     * ConfigLayers} describes: for a bundled configuration that has no file.
     */
    public TtlStreamsConfig layered(Map<String, String> environment, List<String> overrides) {
        return new TtlStreamsConfig(ConfigLayers.merge(originals(), environment, overrides));
    }

    /** The options other than the per-rule ones, for tools and documentation; a copy. */
    public static ConfigDef configDef() {
        return new ConfigDef(BASE);
    }

    /** The Markdown reference of every option, generated from the ConfigDefs, as the README shows it. */
    public static String configReferenceMarkdown() {
        return "## ttl-streams options\n\n" + ConfigReference.markdown(BASE, "")
                + "## Rule options\n\nOne set per name in " + RULES_CONFIG + ".\n\n"
                + ConfigReference.markdown(RuleConfig.configDef(), RuleConfig.PREFIX + "<name>.");
    }

    /** The TTL rules, in the order of {@value #RULES_CONFIG}. */
    public TtlRules rules() {
        return rules;
    }

    /** The change-event topics: {@value #SOURCE_TOPICS_CONFIG}, or those derived from the rules' namespaces. */
    public List<String> sourceTopics() {
        return sourceTopics;
    }

    /** How to find the namespace of a source topic. */
    public TopicNamespaceMapping topicNamespaceMapping() {
        return topicNamespaceMapping;
    }

    public String deleteTopic() {
        return getString(DELETE_TOPIC_CONFIG);
    }

    /** The audit topic; empty when auditing is disabled. */
    public Optional<String> auditTopic() {
        return nonEmpty(getString(AUDIT_TOPIC_CONFIG));
    }

    public String dlqTopic() {
        return getString(DLQ_TOPIC_CONFIG);
    }

    public String controlTopic() {
        return getString(CONTROL_TOPIC_CONFIG);
    }

    public Duration punctuateInterval() {
        return Duration.ofMillis(getLong(PUNCTUATE_INTERVAL_MS_CONFIG));
    }

    public int punctuateMaxEntries() {
        return getInt(PUNCTUATE_MAX_ENTRIES_CONFIG);
    }

    public Duration punctuateMaxDuration() {
        return Duration.ofMillis(getLong(PUNCTUATE_MAX_DURATION_MS_CONFIG));
    }

    /** The per-task delete throttle; empty when unthrottled. */
    public OptionalDouble maxDeletesPerSecond() {
        Double limit = getDouble(MAX_DELETES_PER_SECOND_CONFIG);
        return limit == null ? OptionalDouble.empty() : OptionalDouble.of(limit);
    }

    /** The Kafka Connect REST URL whose connectors ttl-streams manages; empty for none. */
    public Optional<String> connectUrl() {
        return nonEmpty(getString(CONNECT_URL_CONFIG));
    }

    public int embeddedMongodbPort() {
        return getInt(EMBEDDED_MONGODB_PORT_CONFIG);
    }

    public int embeddedKafkaPort() {
        return getInt(EMBEDDED_KAFKA_PORT_CONFIG);
    }

    public int embeddedConnectPort() {
        return getInt(EMBEDDED_CONNECT_PORT_CONFIG);
    }

    /** The embedded stack's data directory; empty for a fresh temporary one. */
    public Optional<Path> embeddedDataDir() {
        return nonEmpty(getString(EMBEDDED_DATA_DIR_CONFIG)).map(Path::of);
    }

    public int httpPort() {
        return getInt(HTTP_PORT_CONFIG);
    }

    public String httpBindAddress() {
        return getString(HTTP_BIND_ADDRESS_CONFIG);
    }

    public Duration healthInterval() {
        return Duration.ofMillis(getLong(HEALTH_INTERVAL_MS_CONFIG));
    }

    /** {@code text} or {@code json}. */
    public String logFormat() {
        return getString(LOG_FORMAT_CONFIG);
    }

    /**
     * The Kafka Streams settings: every key outside {@code ttl.} and {@code embedded.}, over the defaults
     * {@code application.id=ttl-streams}, {@code processing.guarantee=exactly_once_v2} (deletes and schedule
     * updates commit together) and {@code max.task.idle.ms=-1}: every task also reads the control topic, which is
     * nearly always empty, and waiting on it would only delay change events; their order against namespace drops is
     * settled by clusterTime (see the namespace-epochs store), not by arrival. {@code bootstrap.servers} has no
     * default: pointing at a broker by accident is worse than failing. A fresh copy on each call.
     */
    public Properties streamsProperties() {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, DEFAULT_APPLICATION_ID);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        properties.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        originals().forEach((key, value) -> {
            if (!UnknownKeys.isOwn(key) && value != null) {
                properties.put(key, value);
            }
        });
        return properties;
    }

    /**
     * The base options plus, for each name in {@value #RULES_CONFIG}, the rule options under
     * {@code ttl.rule.<name>.}: the definition depends on the values, as Kafka Connect's does for transforms.
     */
    private static ConfigDef definition(Map<?, ?> props) {
        @SuppressWarnings("unchecked") // LIST options parse to List<String>
        List<String> ruleNames = (List<String>) BASE.parse(props).get(RULES_CONFIG);
        ConfigDef definition = new ConfigDef(BASE);
        ruleNames.forEach(name -> RuleConfig.embedInto(definition, name));
        UnknownKeys.reject(props, definition, ruleNames);
        return definition;
    }

    private static ConfigDef baseDefinition() {
        ConfigDef definition = new ConfigDef();
        new Group(definition, RULES_GROUP)
                .define(
                        RULES_CONFIG,
                        Type.LIST,
                        ConfigDef.NO_DEFAULT_VALUE,
                        Validators.of(
                                "distinct names of letters, digits, - and _, at least one",
                                TtlStreamsConfig::checkRuleNames),
                        Importance.HIGH,
                        RULES_DOC);
        new Group(definition, SOURCE_GROUP)
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
                        SOURCE_TOPIC_NAMESPACE_MAP_DOC);
        new Group(definition, OUTPUT_GROUP)
                .define(
                        DELETE_TOPIC_CONFIG,
                        Type.STRING,
                        "ttl.deletes",
                        Validators.topic(),
                        Importance.HIGH,
                        DELETE_TOPIC_DOC)
                .define(
                        AUDIT_TOPIC_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        AUDIT_TOPIC_DOC)
                .define(DLQ_TOPIC_CONFIG, Type.STRING, "ttl.dlq", Validators.topic(), Importance.MEDIUM, DLQ_TOPIC_DOC)
                .define(
                        CONTROL_TOPIC_CONFIG,
                        Type.STRING,
                        "ttl.control",
                        Validators.topic(),
                        Importance.LOW,
                        CONTROL_TOPIC_DOC);
        new Group(definition, SCHEDULER_GROUP)
                .define(
                        PUNCTUATE_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        100L,
                        Range.atLeast(1),
                        Importance.MEDIUM,
                        PUNCTUATE_INTERVAL_MS_DOC)
                .define(
                        PUNCTUATE_MAX_ENTRIES_CONFIG,
                        Type.INT,
                        10_000,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_ENTRIES_DOC)
                .define(
                        PUNCTUATE_MAX_DURATION_MS_CONFIG,
                        Type.LONG,
                        50L,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_DURATION_MS_DOC)
                .define(
                        MAX_DELETES_PER_SECOND_CONFIG,
                        Type.DOUBLE,
                        null,
                        Validators.nullOr(Validators.positiveFinite()),
                        Importance.MEDIUM,
                        MAX_DELETES_PER_SECOND_DOC);
        new Group(definition, CONNECT_GROUP)
                .define(
                        CONNECT_URL_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.httpUrl()),
                        Importance.MEDIUM,
                        CONNECT_URL_DOC);
        new Group(definition, EMBEDDED_GROUP)
                .define(
                        EMBEDDED_MONGODB_PORT_CONFIG,
                        Type.INT,
                        27017,
                        port(),
                        Importance.LOW,
                        EMBEDDED_MONGODB_PORT_DOC)
                .define(EMBEDDED_KAFKA_PORT_CONFIG, Type.INT, 9092, port(), Importance.LOW, EMBEDDED_KAFKA_PORT_DOC)
                .define(EMBEDDED_CONNECT_PORT_CONFIG, Type.INT, 8083, port(), Importance.LOW, EMBEDDED_CONNECT_PORT_DOC)
                .define(EMBEDDED_DATA_DIR_CONFIG, Type.STRING, "", null, Importance.LOW, EMBEDDED_DATA_DIR_DOC);
        new Group(definition, OPERATIONS_GROUP)
                .define(HTTP_PORT_CONFIG, Type.INT, DEFAULT_HTTP_PORT, port(), Importance.MEDIUM, HTTP_PORT_DOC)
                .define(
                        HTTP_BIND_ADDRESS_CONFIG,
                        Type.STRING,
                        "0.0.0.0",
                        Validators.host(),
                        Importance.MEDIUM,
                        HTTP_BIND_ADDRESS_DOC)
                .define(
                        HEALTH_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        10_000L,
                        Range.atLeast(100),
                        Importance.LOW,
                        HEALTH_INTERVAL_MS_DOC)
                .define(
                        LOG_FORMAT_CONFIG,
                        Type.STRING,
                        "text",
                        ConfigDef.ValidString.in(LOG_FORMATS.toArray(String[]::new)),
                        Importance.LOW,
                        LOG_FORMAT_DOC);
        return definition;
    }

    private static ConfigDef.Validator port() {
        return Range.between(0, 65535);
    }

    private static void checkRuleNames(Object value) {
        List<String> names = Validators.distinct((List<?>) value);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("List at least one rule");
        }
        for (String name : names) {
            if (!RULE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("Rule name '" + name + "' may use only letters, digits, - and _");
            }
        }
    }

    /**
     * Parses {@code topic=db.coll} entries.
     *
     * @throws IllegalArgumentException describing the first bad entry
     */
    private static Map<String, Namespace> parseNamespaceMap(List<?> entries) {
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

    private List<String> deriveSourceTopics() {
        List<String> explicit = getList(SOURCE_TOPICS_CONFIG);
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
            for (String topic : topicNamespaceMapping.topicsOf(
                    rule.namespace().exactNamespace().orElseThrow())) {
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

    private static Optional<String> nonEmpty(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    /**
     * Defines options in one documentation group, numbering them in order, which ConfigDef wants for its generated
     * documentation but nobody should count by hand.
     */
    private static final class Group {

        private final ConfigDef definition;
        private final String name;
        private int order;

        Group(ConfigDef definition, String name) {
            this.definition = definition;
            this.name = name;
        }

        Group define(
                String key,
                Type type,
                Object defaultValue,
                ConfigDef.Validator validator,
                Importance importance,
                String documentation) {
            definition.define(
                    key, type, defaultValue, validator, importance, documentation, name, ++order, Width.MEDIUM, key);
            return this;
        }
    }
}
