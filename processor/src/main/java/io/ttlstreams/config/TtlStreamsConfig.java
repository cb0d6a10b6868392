package io.ttlstreams.config;

import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.rules.ConfigValues;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.secrets.BasicCredentials;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The ttl-streams configuration, read once and checked whole: the TTL rules, the topics, the scheduler's budget, the
 * options modules add (the embedded stack's ports), and the Kafka Streams settings, which are every key outside
 * {@code ttl.} and {@code embedded.}.
 *
 * <p>Everything is validated when the object is built, and each {@link ConfigException} names the offending option:
 * a bad value, a missing required option, an option of the other TTL mode, or an unknown {@code ttl.*} or
 * {@code embedded.*} key (Kafka would ignore it, so that a typo would silently change what gets deleted).
 *
 * <p>The options are defined by concern, each group in a class of its own ({@code *Options}, {@link RuleConfig} per
 * rule, each {@link ConfigFragment} on the classpath), composed by {@link ConfigDefinition}; what spans several groups
 * is checked by {@link ConfigChecks}. This class reads them.
 */
public final class TtlStreamsConfig extends AbstractConfig {

    private final TtlRules rules;
    private final TopicNamespaceMapping topicNamespaceMapping;
    private final List<String> sourceTopics;
    private final Optional<BasicCredentials> connectCredentials;
    private final Optional<SigningKey> commandSigningKey;
    private final Optional<String> httpAuthToken;
    private final ExpiryEvents expiryEvents;

    /**
     * @param props the whole configuration: ttl-streams options and Kafka Streams settings
     * @throws ConfigException naming the option on any bad value, missing required option or unknown ttl-streams
     *                         key
     */
    public TtlStreamsConfig(Map<?, ?> props) {
        super(ConfigDefinition.of(props), props);
        this.commandSigningKey =
                password(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG).map(SigningKey::of);
        this.httpAuthToken = password(OperationsOptions.HTTP_AUTH_TOKEN_CONFIG);
        this.rules = new TtlRules(getList(RulesOptions.RULES_CONFIG).stream()
                .map(name -> RuleConfig.toRule(name, this))
                .toList());
        this.topicNamespaceMapping = new TopicNamespaceMapping(
                SourceOptions.parseNamespaceMap(getList(SourceOptions.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG)),
                getString(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG));
        this.sourceTopics =
                SourceOptions.sourceTopics(getList(SourceOptions.SOURCE_TOPICS_CONFIG), rules, topicNamespaceMapping);
        this.connectCredentials = ConnectOptions.credentials(this);
        SchedulerOptions.checkPunctuationFitsTransactions(
                getLong(SchedulerOptions.PUNCTUATE_MAX_DURATION_MS_CONFIG), streamsProperties());
        ConfigChecks.readBackHasMongo(confirmMode(), mongodbUri().isPresent(), sourceProfile());
        SourceProfiles.check(sourceProfile(), confirmMode(), rules);
        this.expiryEvents = expiryEventsOf(getList(RulesOptions.RULES_CONFIG));
        RetryableWrites.check(sourceProfile(), mongodbUri());
    }

    /**
     * The expired-records topic and each rule's document choice; a rule asking for pre-images is refused, naming its
     * option, without the topic or on a service without pre-images.
     */
    private ExpiryEvents expiryEventsOf(List<String> ruleNames) {
        Optional<String> topic = nonEmpty(getString(OutputTopicOptions.EXPIRED_TOPIC_CONFIG));
        Map<String, ExpiredDocument> documents = new LinkedHashMap<>();
        Map<String, Long> notices = new LinkedHashMap<>();
        for (String rule : ruleNames) {
            String prefix = RuleConfig.prefix(rule);
            ExpiredDocument document = ConfigValues.parse(
                    ExpiredDocument.class, "expired document", getString(prefix + RuleConfig.EXPIRED_DOCUMENT_CONFIG));
            if (document == ExpiredDocument.PRE_IMAGE && topic.isEmpty()) {
                throw new ConfigException(
                        prefix + RuleConfig.EXPIRED_DOCUMENT_CONFIG,
                        document.configValue(),
                        "Expired records are off: set " + OutputTopicOptions.EXPIRED_TOPIC_CONFIG
                                + " to the topic they go to");
            }
            SourceProfiles.checkPreImages(sourceProfile(), rule, document);
            documents.put(rule, document);
            Long notice = getLong(prefix + RuleConfig.NOTICE_BEFORE_SECONDS_CONFIG);
            if (notice != null && topic.isEmpty()) {
                throw new ConfigException(
                        prefix + RuleConfig.NOTICE_BEFORE_SECONDS_CONFIG,
                        notice,
                        "Notices go to the expired-records topic: set " + OutputTopicOptions.EXPIRED_TOPIC_CONFIG);
            }
            if (notice != null) {
                notices.put(rule, notice);
            }
        }
        return new ExpiryEvents(topic, documents, notices);
    }

    /** Each rule's blast-radius limit, by rule name in rule order: its own settings where set, else the global ones. */
    public Map<String, GuardLimit> guardLimits() {
        Map<String, GuardLimit> limits = new LinkedHashMap<>();
        for (String rule : getList(RulesOptions.RULES_CONFIG)) {
            Integer max = getInt(RuleConfig.prefix(rule) + RuleConfig.GUARD_MAX_DUE_ON_ARRIVAL_CONFIG);
            Long windowMs = getLong(RuleConfig.prefix(rule) + RuleConfig.GUARD_WINDOW_MS_CONFIG);
            limits.put(
                    rule,
                    new GuardLimit(
                            max == null ? getInt(SchedulerOptions.GUARD_MAX_DUE_ON_ARRIVAL_CONFIG) : max,
                            Duration.ofMillis(
                                    windowMs == null ? getLong(SchedulerOptions.GUARD_WINDOW_MS_CONFIG) : windowMs)));
        }
        return limits;
    }

    /**
     * What start-up should warn about: each Kafka setting that neither Kafka Streams nor its clients define, naming
     * the closest one they do, and two rules reading the same field of the same namespace, where one can never
     * decide a deadline.
     */
    public List<String> warnings() {
        List<String> warnings = new java.util.ArrayList<>(UnknownKeys.unknownKafkaSettings(originals()));
        warnings.addAll(ConfigChecks.sameFieldWarnings(rules));
        return warnings;
    }

    /** The TTL rules, in the order of {@value RulesOptions#RULES_CONFIG}. */
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

    /** The expired records: their topic (empty when off) and what each rule's records carry. */
    public ExpiryEvents expiryEvents() {
        return expiryEvents;
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

    /**
     * How long one stream thread's punctuations, of all its tasks, may take in all within one transaction: half the
     * producer's {@code transaction.timeout.ms} under exactly-once; empty under at-least-once.
     */
    public Optional<Duration> threadPunctuationMaxDuration() {
        return SchedulerOptions.threadPunctuationMaxDuration(streamsProperties());
    }

    /** The application-wide delete throttle; empty when unthrottled. */
    public OptionalInt maxDeletesPerSecond() {
        Integer limit = getInt(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG);
        return limit == null ? OptionalInt.empty() : OptionalInt.of(limit);
    }

    /** Delete commands each task emits per second while the sink does not write, before it ramps up again. */
    public int outageDeletesPerSecond() {
        return getInt(SchedulerOptions.OUTAGE_DELETES_PER_SECOND_CONFIG);
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
     * How delete commands are confirmed: {@value SchedulerOptions#CONFIRM_MODE_CONFIG}, or, unset, the source
     * profile's default: {@link ConfirmMode#READ_BACK} where the change stream reports no deletes, else {@link
     * ConfirmMode#AUTO} when {@value ResyncOptions#MONGODB_URI_CONFIG} is set and {@link ConfirmMode#CHANGE_STREAM}
     * otherwise.
     */
    public ConfirmMode confirmMode() {
        return ConfirmMode.effective(
                getString(SchedulerOptions.CONFIRM_MODE_CONFIG),
                sourceProfile(),
                mongodbUri().isPresent());
    }

    /** The service behind the MongoDB API: {@value SourceOptions#SOURCE_PROFILE_CONFIG}. */
    public SourceProfile sourceProfile() {
        return SourceProfile.of(getString(SourceOptions.SOURCE_PROFILE_CONFIG));
    }

    /** read-back mode: the wait after a first command before its document is read. */
    public Duration confirmReadDelay() {
        return Duration.ofMillis(getLong(SchedulerOptions.CONFIRM_READ_DELAY_MS_CONFIG));
    }

    /** Read-back: look-ups per second per instance at most. */
    public int confirmReadMaxPerSecond() {
        return getInt(SchedulerOptions.CONFIRM_READ_MAX_PER_SECOND_CONFIG);
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
        return password(ResyncOptions.MONGODB_URI_CONFIG).filter(uri -> !uri.isBlank());
    }

    /** The interval of the periodic resync sweep; empty when it is off. */
    public Optional<Duration> resyncInterval() {
        return offWhenZero(ResyncOptions.RESYNC_INTERVAL_MS_CONFIG);
    }

    /** Documents a resync reads per batch. */
    public int resyncBatchSize() {
        return getInt(ResyncOptions.RESYNC_BATCH_SIZE_CONFIG);
    }

    /**
     * How often the rules' collections are checked for a rewrite (a new UUID) that needs an automatic resync; empty
     * when that check is off.
     */
    public Optional<Duration> rewriteCheckInterval() {
        return offWhenZero(ResyncOptions.REWRITE_CHECK_INTERVAL_MS_CONFIG);
    }

    /** How long after a rewrite is seen its collection's automatic resync waits. */
    public Duration rewriteResyncDelay() {
        return Duration.ofMillis(getLong(ResyncOptions.REWRITE_DELAY_MS_CONFIG));
    }

    /** The largest collection, in estimated documents, an automatic resync reads. */
    public long rewriteResyncMaxDocuments() {
        return getLong(ResyncOptions.REWRITE_MAX_DOCUMENTS_CONFIG);
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

    /**
     * Where the Connect workers hold the connectors' Kafka users ({@value ConnectOptions#CONNECT_KAFKA_USERS_DIR_CONFIG}),
     * without a trailing {@code /}; empty when the connectors run as the workers' user.
     */
    public Optional<String> connectKafkaUsersDir() {
        return nonEmpty(getString(ConnectOptions.CONNECT_KAFKA_USERS_DIR_CONFIG))
                .map(dir -> dir.length() > 1 && dir.endsWith("/") ? dir.substring(0, dir.length() - 1) : dir);
    }

    /** The largest document key, bytes of BSON, that is scheduled. */
    public int documentKeyMaxBytes() {
        return getInt(OperationsOptions.DOCUMENT_KEY_MAX_BYTES_CONFIG);
    }

    /** How many stream threads may be replaced within {@link #threadReplacementsWindow()}. */
    public int threadReplacementsMax() {
        return getInt(OperationsOptions.THREAD_REPLACEMENTS_MAX_CONFIG);
    }

    /** The window over which {@link #threadReplacementsMax()} counts. */
    public Duration threadReplacementsWindow() {
        return Duration.ofMillis(getLong(OperationsOptions.THREAD_REPLACEMENTS_WINDOW_MS_CONFIG));
    }

    /** How long {@code run} waits for Kafka, and for Kafka Connect, at start-up. */
    public Duration startupTimeout() {
        return Duration.ofMillis(getLong(OperationsOptions.STARTUP_TIMEOUT_MS_CONFIG));
    }

    public int httpPort() {
        return getInt(OperationsOptions.HTTP_PORT_CONFIG);
    }

    public String httpBindAddress() {
        return getString(OperationsOptions.HTTP_BIND_ADDRESS_CONFIG);
    }

    /** How long an HTTP connection may stay silent before the server closes it. */
    public Duration httpRequestTimeout() {
        return Duration.ofMillis(getLong(OperationsOptions.HTTP_REQUEST_TIMEOUT_MS_CONFIG));
    }

    /** The HTTP server's bearer token; empty when it asks for none. */
    public Optional<String> httpAuthToken() {
        return httpAuthToken;
    }

    /** Whether the probes ask for {@link #httpAuthToken()} too. */
    public boolean httpAuthProbes() {
        return getBoolean(OperationsOptions.HTTP_AUTH_PROBES_CONFIG);
    }

    /** Whether {@code /metrics} asks for {@link #httpAuthToken()} too. */
    public boolean httpAuthMetrics() {
        return getBoolean(OperationsOptions.HTTP_AUTH_METRICS_CONFIG);
    }

    public Duration healthInterval() {
        return Duration.ofMillis(getLong(OperationsOptions.HEALTH_INTERVAL_MS_CONFIG));
    }

    /** {@value ConnectOptions#CONNECT_SINK_RECOVERY_MS_CONFIG}: how long a sink that failed must run to count again. */
    public Duration sinkRecovery() {
        return Duration.ofMillis(getLong(ConnectOptions.CONNECT_SINK_RECOVERY_MS_CONFIG));
    }

    /**
     * How long a source may stay quiet before it counts as failed; empty when 0, or when the source profile renders
     * no heartbeats (a quiet collection would look dead).
     */
    public Optional<Duration> sourceStaleAfter() {
        return offWhenZero(OperationsOptions.HEALTH_SOURCE_STALE_MS_CONFIG)
                .filter(stale -> sourceProfile().heartbeats());
    }

    /** {@code text} or {@code json}. */
    public String logFormat() {
        return getString(OperationsOptions.LOG_FORMAT_CONFIG);
    }

    /**
     * The Kafka Streams settings: every key outside {@code ttl.} and {@code embedded.}, over {@link StreamsDefaults}.
     * The exception handlers that dead-letter are the topology's to add ({@code TtlTopology.streamsProperties}). A
     * fresh copy on each call.
     */
    public Properties streamsProperties() {
        return StreamsDefaults.over(originals());
    }

    /**
     * Whether Kafka Streams joins its group with the streams rebalance protocol (KIP-1071, {@code
     * group.protocol=streams}), in which the brokers' group coordinator assigns the tasks, rather than the classic one.
     */
    public boolean streamsRebalanceProtocol() {
        return StreamsDefaults.streamsProtocol(originals());
    }

    /** The value of PASSWORD option {@code option}, which its validator has checked; empty when unset or empty. */
    private Optional<String> password(String option) {
        return Optional.ofNullable(getPassword(option)).map(Password::value).filter(value -> !value.isEmpty());
    }

    /** The milliseconds of option {@code option}; empty when 0, which turns what it times off. */
    private Optional<Duration> offWhenZero(String option) {
        long millis = getLong(option);
        return millis == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
    }

    /** {@code value}, unless it is null or blank. */
    static Optional<String> nonEmpty(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
