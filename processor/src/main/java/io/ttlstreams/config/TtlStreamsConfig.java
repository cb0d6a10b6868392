package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.secrets.BasicCredentials;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The ttl-streams configuration: the TTL rules, the topics, the scheduler's budget, the options modules add (the
 * embedded stack's ports), and the Kafka Streams settings, which are every key outside {@code ttl.} and {@code
 * embedded.}.
 *
 * <p>Everything is validated when the object is built, and each {@link ConfigException} names the offending option:
 * a bad value, a missing required option, an option of the other TTL mode, or an unknown {@code ttl.*} or
 * {@code embedded.*} key (Kafka would ignore it, so that a typo would silently change what gets deleted).
 *
 * <p>The options are defined by concern, each group in its own class ({@link SourceOptions}, {@link
 * OutputTopicOptions}, {@link SchedulerOptions}, {@link ConnectOptions}, {@link FailureHandlingOptions}, {@link
 * SecurityOptions}, {@link ResyncOptions}, {@link HttpOptions}, {@link RuleConfig} per rule, and each {@link
 * ConfigFragment} on the classpath); this class composes them, checks what spans several, and reads them.
 */
public final class TtlStreamsConfig extends AbstractConfig {

    private static final String RULES_GROUP = "Rules";

    public static final String RULES_CONFIG = "ttl.rules";
    public static final String RULES_DOC = "Names of the TTL rules, each configured under ttl.rule.<name>. (see the"
            + " rule options). Names use letters, digits, '-' and '_'.";

    /** Kafka Streams' {@code application.id} unless the configuration sets one. */
    public static final String DEFAULT_APPLICATION_ID = "ttl-streams";
    /** The consumer's {@code session.timeout.ms} unless the configuration sets one. */
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    /** The consumer's {@code heartbeat.interval.ms} unless the configuration sets one. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 3_000;

    /** Letters, digits, '-' and '_': a rule name becomes one dot-free segment of its option keys. */
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private static final ConfigDef BASE = baseDefinition();

    /**
     * {@value #RULES_CONFIG} alone, which the definition depends on. Read before config providers resolve
     * {@code ${...}} references, so no other option is validated then.
     */
    private static final ConfigDef RULE_NAMES =
            new ConfigDef().define(BASE.configKeys().get(RULES_CONFIG));

    private final TtlRules rules;
    private final TopicNamespaceMapping topicNamespaceMapping;
    private final List<String> sourceTopics;
    private final Optional<BasicCredentials> connectCredentials;
    private final Optional<SigningKey> commandSigningKey;
    private final Optional<String> httpAuthToken;

    /**
     * @param props the whole configuration: ttl-streams options and Kafka Streams settings
     * @throws ConfigException naming the option on any bad value, missing required option or unknown ttl-streams
     *                         key
     */
    public TtlStreamsConfig(Map<?, ?> props) {
        super(definition(props), props);
        this.commandSigningKey = SecurityOptions.signingKey(getPassword(SecurityOptions.COMMAND_SIGNING_KEY_CONFIG));
        this.httpAuthToken = HttpOptions.authToken(getPassword(HttpOptions.HTTP_AUTH_TOKEN_CONFIG));
        this.rules = new TtlRules(getList(RULES_CONFIG).stream()
                .map(name -> RuleConfig.toRule(name, this))
                .toList());
        this.topicNamespaceMapping = new TopicNamespaceMapping(
                SourceOptions.parseNamespaceMap(getList(SourceOptions.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG)),
                getString(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG));
        this.sourceTopics =
                SourceOptions.sourceTopics(getList(SourceOptions.SOURCE_TOPICS_CONFIG), rules, topicNamespaceMapping);
        this.connectCredentials = ConnectOptions.credentials(
                nonEmpty(getString(ConnectOptions.CONNECT_URL_CONFIG)).map(URI::create),
                nonEmpty(getString(ConnectOptions.CONNECT_USERNAME_CONFIG)),
                Optional.ofNullable(getPassword(ConnectOptions.CONNECT_PASSWORD_CONFIG))
                        .filter(password -> !password.value().isEmpty()));
        SchedulerOptions.checkPunctuationFitsTransactions(
                getLong(SchedulerOptions.PUNCTUATE_MAX_DURATION_MS_CONFIG), streamsProperties());
        checkReadBackHasMongo();
    }

    /** Read-back asked for explicitly needs a deployment to read: failing beats silently retrying blind. */
    private void checkReadBackHasMongo() {
        if (originals().containsKey(SchedulerOptions.CONFIRM_READ_BACK_CONFIG)
                && getBoolean(SchedulerOptions.CONFIRM_READ_BACK_CONFIG)
                && mongodbUri().isEmpty()) {
            throw new ConfigException(
                    SchedulerOptions.CONFIRM_READ_BACK_CONFIG,
                    true,
                    "Read-back reads documents from " + ResyncOptions.MONGODB_URI_CONFIG
                            + ", which is not set: set it, or set" + " this option to false");
        }
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

    /** Each rule's blast-radius limit, by rule name: its own settings where set, else the global ones. */
    public Map<String, GuardLimit> guardLimits() {
        GuardLimit global = GuardOptions.global(this);
        Map<String, GuardLimit> limits = new LinkedHashMap<>();
        for (String rule : getList(RULES_CONFIG)) {
            limits.put(rule, RuleConfig.guardLimit(rule, this, global));
        }
        return limits;
    }

    /** The TTL rules, in the order of {@value #RULES_CONFIG}. */
    public TtlRules rules() {
        return rules;
    }

    /** The change-event topics: {@value SourceOptions#SOURCE_TOPICS_CONFIG}, or those derived from the rules' namespaces. */
    public List<String> sourceTopics() {
        return sourceTopics;
    }

    /** How to find the namespace of a source topic. */
    public TopicNamespaceMapping topicNamespaceMapping() {
        return topicNamespaceMapping;
    }

    /** How far a change event's times may lie after its record's timestamp. */
    public Duration eventTimeMaxFutureSkew() {
        return Duration.ofMillis(getLong(SourceOptions.EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG));
    }

    /** How far a change event's times may lie before its record's timestamp. */
    public Duration eventTimeMaxLag() {
        return Duration.ofMillis(getLong(SourceOptions.EVENT_TIME_MAX_LAG_MS_CONFIG));
    }

    public String deleteTopic() {
        return getString(OutputTopicOptions.DELETE_TOPIC_CONFIG);
    }

    /** The audit topic; empty when auditing is disabled. */
    public Optional<String> auditTopic() {
        return nonEmpty(getString(OutputTopicOptions.AUDIT_TOPIC_CONFIG));
    }

    public String dlqTopic() {
        return getString(OutputTopicOptions.DLQ_TOPIC_CONFIG);
    }

    public String controlTopic() {
        return getString(OutputTopicOptions.CONTROL_TOPIC_CONFIG);
    }

    public Duration punctuateInterval() {
        return Duration.ofMillis(getLong(SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG));
    }

    public int punctuateMaxEntries() {
        return getInt(SchedulerOptions.PUNCTUATE_MAX_ENTRIES_CONFIG);
    }

    public Duration punctuateMaxDuration() {
        return Duration.ofMillis(getLong(SchedulerOptions.PUNCTUATE_MAX_DURATION_MS_CONFIG));
    }

    /** The application-wide delete throttle; empty when unthrottled. */
    public OptionalInt maxDeletesPerSecond() {
        Integer limit = getInt(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG);
        return limit == null ? OptionalInt.empty() : OptionalInt.of(limit);
    }

    /** The key that signs delete commands; empty when commands go unsigned. */
    public Optional<SigningKey> commandSigningKey() {
        return commandSigningKey;
    }

    /** How long a delete command first awaits confirmation. */
    public Duration confirmTimeout() {
        return Duration.ofMillis(getLong(SchedulerOptions.CONFIRM_TIMEOUT_MS_CONFIG));
    }

    /** Delete commands emitted for one document before giving up. */
    public int confirmMaxAttempts() {
        return getInt(SchedulerOptions.CONFIRM_MAX_ATTEMPTS_CONFIG);
    }

    /**
     * Whether unconfirmed deletes' documents are read back from {@value ResyncOptions#MONGODB_URI_CONFIG}: on by default whenever
     * it is set.
     */
    public boolean confirmReadBack() {
        return getBoolean(SchedulerOptions.CONFIRM_READ_BACK_CONFIG)
                && mongodbUri().isPresent();
    }

    /** Read-back: documents of one collection per look-up. */
    public int confirmReadBatchSize() {
        return getInt(SchedulerOptions.CONFIRM_READ_BATCH_SIZE_CONFIG);
    }

    /** Whether delete commands are suppressed. */
    public boolean dryRun() {
        return getBoolean(SchedulerOptions.DRY_RUN_CONFIG);
    }

    /**
     * The MongoDB connection string resyncs read from, credentials and all: never print it. Empty when none is
     * configured.
     */
    public Optional<String> mongodbUri() {
        return Optional.ofNullable(getPassword(ResyncOptions.MONGODB_URI_CONFIG))
                .map(Password::value)
                .filter(uri -> !uri.isBlank());
    }

    /** The interval of the periodic resync sweep; empty when it is off. */
    public Optional<Duration> resyncInterval() {
        long millis = getLong(ResyncOptions.RESYNC_INTERVAL_MS_CONFIG);
        return millis == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
    }

    /** Documents a resync reads per batch. */
    public int resyncBatchSize() {
        return getInt(ResyncOptions.RESYNC_BATCH_SIZE_CONFIG);
    }

    /**
     * The Kafka Connect REST URL whose connectors ttl-streams manages, without user info, so safe to print; empty for
     * none.
     */
    public Optional<String> connectUrl() {
        return nonEmpty(getString(ConnectOptions.CONNECT_URL_CONFIG))
                .map(url -> BasicCredentials.withoutUserInfo(URI.create(url)).toString());
    }

    /**
     * The HTTP Basic credentials for {@link #connectUrl()}: from its user info, or from {@value
     * ConnectOptions#CONNECT_USERNAME_CONFIG} and {@value ConnectOptions#CONNECT_PASSWORD_CONFIG}; empty when Connect needs none.
     */
    public Optional<BasicCredentials> connectCredentials() {
        return connectCredentials;
    }

    /** The largest document key, bytes of BSON, that is scheduled. */
    public int documentKeyMaxBytes() {
        return getInt(FailureHandlingOptions.DOCUMENT_KEY_MAX_BYTES_CONFIG);
    }

    /** How many stream threads may be replaced within {@link #threadReplacementsWindow()}. */
    public int threadReplacementsMax() {
        return getInt(FailureHandlingOptions.THREAD_REPLACEMENTS_MAX_CONFIG);
    }

    /** The window over which {@link #threadReplacementsMax()} counts. */
    public Duration threadReplacementsWindow() {
        return Duration.ofMillis(getLong(FailureHandlingOptions.THREAD_REPLACEMENTS_WINDOW_MS_CONFIG));
    }

    public int httpPort() {
        return getInt(HttpOptions.HTTP_PORT_CONFIG);
    }

    public String httpBindAddress() {
        return getString(HttpOptions.HTTP_BIND_ADDRESS_CONFIG);
    }

    /** How long a client may take to send a request's line and headers. */
    public Duration httpRequestTimeout() {
        return Duration.ofMillis(getLong(HttpOptions.HTTP_REQUEST_TIMEOUT_MS_CONFIG));
    }

    /** The HTTP server's bearer token; empty when it asks for none. */
    public Optional<String> httpAuthToken() {
        return httpAuthToken;
    }

    /** Whether the probes ask for {@link #httpAuthToken()} too. */
    public boolean httpAuthProbes() {
        return getBoolean(HttpOptions.HTTP_AUTH_PROBES_CONFIG);
    }

    /** Whether {@code /metrics} asks for {@link #httpAuthToken()} too. */
    public boolean httpAuthMetrics() {
        return getBoolean(HttpOptions.HTTP_AUTH_METRICS_CONFIG);
    }

    public Duration healthInterval() {
        return Duration.ofMillis(getLong(HttpOptions.HEALTH_INTERVAL_MS_CONFIG));
    }

    /** {@code text} or {@code json}. */
    public String logFormat() {
        return getString(HttpOptions.LOG_FORMAT_CONFIG);
    }

    /**
     * The Kafka Streams settings: every key outside {@code ttl.} and {@code embedded.}, over these defaults:
     *
     * <ul>
     *   <li>{@code application.id=ttl-streams};</li>
     *   <li>{@code processing.guarantee=exactly_once_v2}: deletes and schedule updates commit together;</li>
     *   <li>{@code max.task.idle.ms=-1}: every task also reads the control topic, which is nearly always empty, and
     *       waiting on it would only delay change events; their order against namespace drops is settled by
     *       clusterTime (see the namespace-epochs store), not by arrival;</li>
     *   <li>{@code session.timeout.ms=10000} and {@code heartbeat.interval.ms=3000} (Kafka's: 45 s and 3 s): an
     *       instance that dies without leaving the group holds its partitions until the session times out, and
     *       every document due meanwhile is late by that much;</li>
     *   <li>{@code num.standby.replicas=1}: another instance keeps a warm copy of each task's stores, so that a
     *       takeover does not first replay the changelogs (no effect with a single instance).</li>
     * </ul>
     *
     * {@code bootstrap.servers} has no default: pointing at a broker by accident is worse than failing. The exception
     * handlers that dead-letter are the topology's to add ({@code TtlTopology.streamsProperties}). A fresh copy on
     * each call.
     */
    public Properties streamsProperties() {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, DEFAULT_APPLICATION_ID);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        properties.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        // Unprefixed, so that a user's session.timeout.ms, consumer.session.timeout.ms or
        // main.consumer.session.timeout.ms wins, as Kafka Streams lets the more specific setting win.
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(DEFAULT_SESSION_TIMEOUT_MS));
        properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(DEFAULT_HEARTBEAT_INTERVAL_MS));
        properties.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1");
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
        List<String> ruleNames = (List<String>) RULE_NAMES.parse(props).get(RULES_CONFIG);
        ConfigDef definition = new ConfigDef(BASE);
        ruleNames.forEach(name -> RuleConfig.embedInto(definition, name));
        UnknownKeys.reject(props, definition, ruleNames);
        return definition;
    }

    /** The options other than the per-rule ones, by concern, in the order the reference documents them. */
    private static ConfigDef baseDefinition() {
        ConfigDef definition = new ConfigDef();
        new OptionGroup(definition, RULES_GROUP)
                .define(
                        RULES_CONFIG,
                        Type.LIST,
                        ConfigDef.NO_DEFAULT_VALUE,
                        Validators.of(
                                "distinct names of letters, digits, - and _, at least one",
                                TtlStreamsConfig::checkRuleNames),
                        Importance.HIGH,
                        RULES_DOC);
        SourceOptions.embedInto(definition);
        OutputTopicOptions.embedInto(definition);
        SchedulerOptions.embedInto(definition);
        GuardOptions.embedInto(definition);
        ConnectOptions.embedInto(definition);
        // The modules' fragments (module embedded's embedded.* options) where that group has always been documented.
        ServiceLoader.load(ConfigFragment.class).stream()
                .sorted(Comparator.comparing(provider -> provider.type().getName()))
                .forEach(provider -> provider.get().embedInto(definition));
        FailureHandlingOptions.embedInto(definition);
        SecurityOptions.embedInto(definition);
        ResyncOptions.embedInto(definition);
        HttpOptions.embedInto(definition);
        return definition;
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

    private static Optional<String> nonEmpty(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
